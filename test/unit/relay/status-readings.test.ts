// A poll costs one upstream call when nothing changed: the conversation's status is read again only when the last
// reading is STATUS_REFRESH_SECONDS old, when the messages show something newer than it, or after the relay itself
// changed the conversation (escalate). Issue 9: the second upstream call per poll was a third of the relay's cost.
import { afterEach, describe, expect, it } from 'vitest';
import { createStatusReadings, stillCurrent } from '../../../src/relay/conversations/status-readings.ts';
import { RESOLVED_READ_GRACE_MS } from '../../../src/relay/conversations/read-policy.ts';
import { createRelayHarness } from './relay-harness.ts';
import { ESCALATE, MESSAGES } from '../../support/conversation-calls.ts';

describe('createStatusReadings', () => {
  it('gives a reading back until it is maxAgeMs old', () => {
    let time = 1_000;
    const readings = createStatusReadings({ maxAgeMs: 10_000, now: () => time });
    readings.remember('c1', { status: 'open', updatedAt: 5, newestSequence: 2 });
    time += 9_999;
    expect(readings.recent('c1')).toMatchObject({ status: 'open', updatedAt: 5, newestSequence: 2 });
    time += 1;
    expect(readings.recent('c1')).toBeNull();
    expect(readings.recent('c2')).toBeNull();
  });

  it('gives an older reading to a caller that accepts one (a live watch while events arrive), and none with reuse off', () => {
    let time = 1_000;
    const readings = createStatusReadings({ maxAgeMs: 10_000, now: () => time });
    readings.remember('c1', { status: 'open', updatedAt: 5, newestSequence: 2 });
    time += 60_000;
    expect(readings.recent('c1')).toBeNull();
    expect(readings.recent('c1', 300_000)).toMatchObject({ status: 'open' });
    time += 240_000;
    expect(readings.recent('c1', 300_000)).toBeNull();
    const off = createStatusReadings({ maxAgeMs: 0, now: () => time });
    off.remember('c1', { status: 'open', updatedAt: 5, newestSequence: 2 });
    expect(off.recent('c1', 300_000)).toBeNull();
  });

  it('holds at most `capacity` conversations, dropping the oldest reading', () => {
    const readings = createStatusReadings({ maxAgeMs: 10_000, capacity: 2 });
    readings.remember('c1', { status: 'open', updatedAt: 0, newestSequence: 0 });
    readings.remember('c2', { status: 'open', updatedAt: 0, newestSequence: 0 });
    readings.remember('c1', { status: 'escalated', updatedAt: 0, newestSequence: 1 }); // c1 is now the newest
    readings.remember('c3', { status: 'open', updatedAt: 0, newestSequence: 0 });
    expect(readings.recent('c2')).toBeNull();
    expect(readings.recent('c1')?.status).toBe('escalated');
    expect(readings.recent('c3')?.status).toBe('open');
  });

  it('keeps a newer reading (by the service’s updatedAt) over an older one that arrives later', () => {
    let time = 0;
    const readings = createStatusReadings({ maxAgeMs: 10_000, now: () => time });
    readings.remember('c1', { status: 'escalated', updatedAt: 2_000, newestSequence: 3 });
    readings.remember('c1', { status: 'open', updatedAt: 1_000, newestSequence: 3 }); // read before the escalation
    expect(readings.recent('c1')?.status).toBe('escalated');
    readings.remember('c1', { status: 'resolved', updatedAt: 3_000, newestSequence: 3 });
    expect(readings.recent('c1')?.status).toBe('resolved');
    time += 10_000; // the kept reading is old: whatever is read next is kept
    readings.remember('c1', { status: 'open', updatedAt: 1_000, newestSequence: 3 });
    expect(readings.recent('c1')?.status).toBe('open');
  });

  it('forgets on demand, and remembers nothing when maxAgeMs is 0', () => {
    const readings = createStatusReadings({ maxAgeMs: 10_000 });
    readings.remember('c1', { status: 'open', updatedAt: 0, newestSequence: 0 });
    readings.forget('c1');
    expect(readings.recent('c1')).toBeNull();
    const off = createStatusReadings({ maxAgeMs: 0 });
    off.remember('c1', { status: 'open', updatedAt: 0, newestSequence: 0 });
    expect(off.recent('c1')).toBeNull();
  });

  it('a reading speaks for the messages it had seen, not for newer ones', () => {
    const reading = { status: 'open', updatedAt: 0, newestSequence: 4 } as const;
    expect(stillCurrent(reading, 3)).toBe(true);
    expect(stillCurrent(reading, 4)).toBe(true);
    expect(stillCurrent(reading, 5)).toBe(false);
  });
});

describe('polling through the relay', () => {
  let harness: ReturnType<typeof createRelayHarness>;
  afterEach(() => harness.close());

  /** Upstream reads of the conversation's status (GET /api/conversations/{id}/) and of its messages, counted. */
  function countReads() {
    const counts = { status: 0, messages: 0 };
    const original = harness.simulator.fetch.bind(harness.simulator);
    harness.simulator.fetch = (input, init) => {
      const { pathname } = new URL(String(input));
      if ((init?.method ?? 'GET') === 'GET' && /^\/api\/conversations\/[^/]+\/$/.test(pathname)) counts.status += 1;
      if ((init?.method ?? 'GET') === 'GET' && /^\/api\/conversations\/[^/]+\/messages\/$/.test(pathname))
        counts.messages += 1;
      return original(input, init);
    };
    return counts;
  }
  const poll = async (handle: string, after = 0) =>
    (await harness.fromPanel(handle, `${MESSAGES}?after=${after}`)).json() as Promise<{
      messages: { sender: string }[];
      cursor: number;
      status: string;
    }>;
  const send = (handle: string, text: string, key: string) =>
    harness.fromPanel(handle, MESSAGES, { body: { text }, headers: { 'Idempotency-Key': key } });

  it('reads the status with the first poll, then reuses it while nothing new arrives', async () => {
    let time = Date.parse('2026-11-23T10:00:00Z');
    harness = createRelayHarness({ now: () => time, simulator: { now: () => time } });
    const handle = await harness.startConversation();
    const counts = countReads();
    for (let i = 0; i < 5; i++) {
      expect((await poll(handle)).status).toBe('open');
      time += 1_000;
    }
    expect(counts).toEqual({ messages: 5, status: 1 });
  });

  it('reads the status again when a poll brings a message newer than the reading', async () => {
    const time = Date.parse('2026-11-23T10:00:00Z');
    harness = createRelayHarness({ now: () => time, simulator: { now: () => time } });
    const handle = await harness.startConversation();
    const first = await poll(handle);
    const counts = countReads();
    expect((await send(handle, 'Do you take my insurance?', 'key-status-1')).status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 20)); // the bot's answer, scheduled with no delay
    const page = await poll(handle, first.cursor);
    expect(page.messages.map((message) => message.sender)).toEqual(['visitor', 'bot']);
    expect(counts.status).toBe(1);
    await poll(handle, page.cursor);
    expect(counts.status).toBe(1); // nothing newer than what the re-read had seen
  });

  it('a silent change upstream (staff resolve) shows within STATUS_REFRESH_SECONDS, not on the same second', async () => {
    let time = Date.parse('2026-11-23T10:00:00Z');
    harness = createRelayHarness({
      now: () => time,
      simulator: { now: () => time },
      environment: { STATUS_REFRESH_SECONDS: '5' },
    });
    const handle = await harness.startConversation();
    expect((await poll(handle)).status).toBe('open');
    await harness.resolveUpstream();
    time += 4_999;
    expect((await poll(handle)).status).toBe('open');
    time += 1;
    expect((await poll(handle)).status).toBe('resolved');
  });

  it('after the visitor escalates, polls give the escalated status from the escalation’s own answer', async () => {
    harness = createRelayHarness({ simulator: { agentJoinDelayMs: 60_000 } }); // no agent message during the test
    const handle = await harness.startConversation();
    expect((await poll(handle)).status).toBe('open');
    const counts = countReads();
    expect((await harness.fromPanel(handle, ESCALATE, { body: {} })).status).toBe(200);
    expect((await poll(handle)).status).toBe('escalated');
    expect(counts.status).toBe(0);
  });

  it('with STATUS_REFRESH_SECONDS=0 every poll reads the status', async () => {
    harness = createRelayHarness({ environment: { STATUS_REFRESH_SECONDS: '0' } });
    const handle = await harness.startConversation();
    const counts = countReads();
    for (let i = 0; i < 3; i++) await poll(handle);
    expect(counts).toEqual({ messages: 3, status: 3 });
  });

  it('a reused reading still retires the handle once the resolved grace period is over', async () => {
    let time = Date.parse('2026-11-23T10:00:00Z');
    harness = createRelayHarness({ now: () => time, simulator: { now: () => time } });
    const handle = await harness.startConversation();
    await harness.resolveUpstream();
    time += RESOLVED_READ_GRACE_MS - 2_000;
    expect((await poll(handle)).status).toBe('resolved'); // read now, and kept for 10 s
    const counts = countReads();
    time += 4_000; // past the grace period, with the reading still young
    const response = await harness.fromPanel(handle, `${MESSAGES}?after=0`);
    expect(response.status).toBe(409);
    expect((await response.json()).error.code).toBe('conversation_resolved');
    expect(counts.status).toBe(0);
  });
});
