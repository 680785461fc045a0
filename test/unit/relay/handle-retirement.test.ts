// Issue 14, point 1: a handle used to keep working after End chat (read 200 with the history, write 201), and to read
// the whole history after the practice resolved the conversation, for its 12-hour life.
import { afterEach, describe, expect, it } from 'vitest';
import { createHandleSealer } from '../../../src/relay/conversations/handles.ts';
import { RESOLVED_READ_GRACE_MS } from '../../../src/relay/conversations/read-policy.ts';
import { createRelayHarness, UPSTREAM_BASE_URL } from './relay-harness.ts';
import { CONVERSATION, MESSAGES } from '../../support/conversation-calls.ts';

// Each test's own, closed after it; the sealer's test makes none, and may run first (`--sequence.shuffle`).
let harness: ReturnType<typeof createRelayHarness> | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const read = (handle: string) =>
  harness!.fromPanel(handle, `${MESSAGES}?after=0`, { headers: { 'X-Practice-Chat': 'frame' } });
const write = (handle: string, key = 'key-0000001') =>
  harness!.fromPanel(handle, MESSAGES, { body: { text: 'my tooth hurts' }, headers: { 'Idempotency-Key': key } });
const end = (handle: string, headers: Record<string, string> = {}) =>
  harness!.fromPanel(handle, CONVERSATION, { method: 'DELETE', headers });

/** Every call the relay made upstream, counted by wrapping the simulator's fetch. */
function countUpstreamCalls(): () => number {
  let calls = 0;
  const { simulator } = harness!;
  const original = simulator.fetch.bind(simulator);
  simulator.fetch = (input, init) => {
    calls += 1;
    return original(input, init);
  };
  return () => calls;
}

describe('End chat retires the handle on the relay', () => {
  it('after End chat the handle neither reads nor writes, and nothing reaches upstream', async () => {
    harness = createRelayHarness();
    const handle = await harness.startConversation();
    expect((await write(handle)).status).toBe(201);
    expect((await end(handle)).status).toBe(204);

    const upstreamCalls = countUpstreamCalls();
    for (const response of [await read(handle), await write(handle, 'key-0000002'), await end(handle)]) {
      expect(response.status).toBe(401);
      expect((await response.json()).error.code).toBe('session_expired');
    }
    expect(upstreamCalls()).toBe(0);
  });

  it('retiring one conversation leaves another visitor’s working', async () => {
    harness = createRelayHarness();
    const mine = await harness.startConversation();
    const theirs = await harness.startConversation();
    await end(mine);
    expect((await read(theirs)).status).toBe(200);
  });

  it('takes the same origin rule as every write: another site cannot end a visitor’s chat', async () => {
    harness = createRelayHarness();
    const handle = await harness.startConversation();
    const response = await end(handle, { Origin: 'https://evil.example' });
    expect(response.status).toBe(403);
    expect((await read(handle)).status).toBe(200);
  });
});

describe('a resolved conversation stops being read out after a grace period', () => {
  it('reads the history within the grace period, and refuses it after', async () => {
    let time = Date.parse('2026-11-22T10:00:00Z');
    harness = createRelayHarness({ now: () => time, simulator: { now: () => time } });
    const handle = await harness.startConversation();
    expect((await write(handle)).status).toBe(201);
    await harness.resolveUpstream();

    time += RESOLVED_READ_GRACE_MS - 60_000;
    const within = await read(handle);
    expect(within.status).toBe(200);
    expect((await within.json()).status).toBe('resolved');

    time += 2 * 60_000;
    const after = await read(handle);
    expect(after.status).toBe(409);
    const body = await after.text();
    expect(JSON.parse(body).error.code).toBe('conversation_resolved');
    expect(body).not.toContain('tooth');
  });

  it('stays closed when staff edit the resolved conversation after the grace period (updated_at moves on)', async () => {
    let time = Date.parse('2026-11-22T10:00:00Z');
    harness = createRelayHarness({ now: () => time, simulator: { now: () => time } });
    const handle = await harness.startConversation();
    expect((await write(handle)).status).toBe(201);
    await harness.resolveUpstream();
    time += RESOLVED_READ_GRACE_MS + 60_000;
    expect((await read(handle)).status).toBe(409);

    // Staff give the case a subject, straight through the service: its updated_at is now.
    const [upstreamId] = [...harness.simulator.store.conversations.keys()];
    const token = await (
      await harness.simulator.fetch(`${UPSTREAM_BASE_URL}/api/oauth/token/`, {
        method: 'POST',
        body: new URLSearchParams({
          username: harness.simulator.seed.username,
          password: harness.simulator.seed.password,
        }),
      })
    ).json();
    const edited = await harness.simulator.fetch(`${UPSTREAM_BASE_URL}/api/conversations/${upstreamId}/`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${token.access_token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ subject: 'Toothache, follow up' }),
    });
    expect((await edited.json()).updated_at).toBe(new Date(time).toISOString());

    const again = await read(handle);
    expect(again.status).toBe(401);
    const body = await again.text();
    expect(JSON.parse(body).error.code).toBe('session_expired');
    expect(body).not.toContain('tooth');
  });
});

describe('handles have one spelling', () => {
  it('refuses a handle whose last character differs only in unused bits, before any upstream call', async () => {
    harness = createRelayHarness();
    const handle = await harness.startConversation();
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const unusedBits = [0, 0, 4, 2][handle.length % 4]!; // bits of the last character that decode to nothing
    expect(unusedBits).toBeGreaterThan(0);
    const last = alphabet.indexOf(handle.at(-1)!);
    const twin = handle.slice(0, -1) + alphabet[last ^ 1]!;
    expect(Buffer.from(twin, 'base64url').equals(Buffer.from(handle, 'base64url'))).toBe(true);

    const upstreamCalls = countUpstreamCalls();
    const response = await read(twin);
    expect(response.status).toBe(401);
    expect(upstreamCalls()).toBe(0);
    expect((await read(handle)).status).toBe(200);
  });

  it('the sealer itself refuses non-canonical spellings and accepts what it made', () => {
    const sealer = createHandleSealer(new Uint8Array(32).fill(3));
    for (let index = 0; index < 20; index++) {
      const handle = sealer.seal({
        clientId: 'demo-client',
        conversationId: `c-${'x'.repeat(index)}`,
        expiresAt: Date.now() + 60_000,
      });
      expect(sealer.open(handle)).not.toBeNull();
      if (handle.length % 4 !== 0) {
        const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
        const twin = handle.slice(0, -1) + alphabet[alphabet.indexOf(handle.at(-1)!) ^ 1]!;
        expect(sealer.open(twin)).toBeNull();
      }
    }
  });
});
