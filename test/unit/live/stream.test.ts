// GET /v1/conversation/events on a real port (the relay through @hono/node-server, the simulator as upstream): the
// stream's headers and first bytes, catch-up after a cursor, each new message once and in order, status changes,
// End chat ending another tab's stream, one watch for two tabs, and the stop ending every stream at once.
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulatorServer } from '../../../src/simulator/server.ts';
import { bearer, CONVERSATION, ESCALATE, MESSAGES } from '../../support/conversation-calls.ts';
import { messageTexts, readStream } from '../../support/live-stream.ts';
import { startCountedRelay } from '../../support/counted-relay.ts';

const EVENTS = '/v1/conversation/events';
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start({ botReplyDelayMs = 0 } = {}) {
  const simulator = await startSimulatorServer({ botReplyDelayMs, agentJoinDelayMs: 0 });
  cleanups.push(() => simulator.close());
  const { relay, call, reads } = await startCountedRelay(simulator);
  cleanups.push(() => relay.close());
  const created = await call('/v1/conversations', { body: { client_id: 'demo-client' } });
  const handle = ((await created.json()) as { conversation: string }).conversation;
  return { simulator, relay, call, handle, reads };
}

/** Opens a stream and parses what arrives (test/support/live-stream.ts). */
async function openStream(call: Awaited<ReturnType<typeof start>>['call'], handle: string, after = 0) {
  const stream = readStream(await call(`${EVENTS}?after=${after}`, { headers: bearer(handle) }));
  cleanups.push(() => stream.cancel());
  return stream;
}

describe('GET /v1/conversation/events', () => {
  it('answers a stream at once, then each new message once and in order, and the status', async () => {
    const { call, handle } = await start();
    const stream = await openStream(call, handle);
    expect(stream.answer.status).toBe(200);
    expect(stream.answer.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(stream.answer.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(stream.answer.headers.get('x-accel-buffering')).toBe('no');
    await stream.next((event) => event.event === 'comment');
    await stream.next((event) => event.event === 'status');

    const sent = await call(MESSAGES, {
      body: { text: 'Are you open on Saturday?' },
      headers: { ...bearer(handle), 'Idempotency-Key': 'stream-key-0001' },
    });
    expect(sent.status).toBe(201);
    // The bot answers; the watch reads quickly after the patient writes.
    await stream.next((event) => event.event === 'message' && (event.data as { sender: string }).sender === 'bot');
    const messages = stream.events.filter((event) => event.event === 'message');
    expect(messageTexts(stream.events)[0]).toBe('Are you open on Saturday?');
    expect(messages.map((event) => Number(event.id))).toEqual(
      [...messages.map((event) => Number(event.id))].sort((a, b) => a - b),
    );
    expect(new Set(messages.map((event) => event.id)).size).toBe(messages.length);

    expect((await call(ESCALATE, { body: {}, headers: bearer(handle) })).status).toBe(200);
    await stream.next((event) => event.event === 'status' && (event.data as { status: string }).status === 'escalated');
  }, 20_000);

  it('a send that arrives before the stream opens still makes its watch read quickly (the panel opens both at once)', async () => {
    // The bot answers 1.5 s after the patient writes: after the stream's own first read, so only the watch brings it.
    const { call, handle } = await start({ botReplyDelayMs: 1500 });
    const sent = await call(MESSAGES, {
      body: { text: 'Is there parking?' },
      headers: { ...bearer(handle), 'Idempotency-Key': 'stream-key-race' },
    });
    expect(sent.status).toBe(201);
    const stream = await openStream(call, handle);
    // An idle watch would read again 15-18 s later; one that knows the patient just wrote reads every second.
    await stream.next(
      (event) => event.event === 'message' && (event.data as { sender: string }).sender === 'bot',
      6000,
    );
  }, 20_000);

  it('catches up after a cursor: only messages after it', async () => {
    const { call, handle } = await start();
    await call(MESSAGES, {
      body: { text: 'first' },
      headers: { ...bearer(handle), 'Idempotency-Key': 'stream-key-0002' },
    });
    const read = (await (await call(`${MESSAGES}?after=0`, { headers: bearer(handle) })).json()) as {
      cursor: number;
      messages: { text: string; sequence: number }[];
    };
    const firstSequence = read.messages.find((message) => message.text === 'first')!.sequence;
    const stream = await openStream(call, handle, firstSequence);
    await stream.next((event) => event.event === 'status');
    expect(messageTexts(stream.events)).not.toContain('first');
  }, 20_000);

  it('two tabs share one watch: the upstream is read for the conversation as for one', async () => {
    const { call, handle, reads } = await start();
    const one = await openStream(call, handle);
    await one.next((event) => event.event === 'status');
    const before = reads();
    const two = await openStream(call, handle);
    await two.next((event) => event.event === 'status');
    // The second tab's own catch-up is its one read; then both wait on the same watch.
    expect(reads() - before).toBe(1);
    await call(MESSAGES, {
      body: { text: 'shared' },
      headers: { ...bearer(handle), 'Idempotency-Key': 'stream-key-0003' },
    });
    await one.next((event) => event.event === 'message' && (event.data as { sender: string }).sender === 'bot');
    await two.next((event) => event.event === 'message' && (event.data as { sender: string }).sender === 'bot');
    const afterBoth = reads();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    // Fast cadence after a send: about one read a second for the conversation, not two.
    expect(reads() - afterBoth).toBeLessThanOrEqual(4);
  }, 20_000);

  it("End chat in one tab ends the other tab's stream with session_expired", async () => {
    const { call, handle } = await start();
    const stream = await openStream(call, handle);
    await stream.next((event) => event.event === 'status');
    expect((await call(CONVERSATION, { method: 'DELETE', headers: bearer(handle) })).status).toBe(204);
    const error = await stream.next((event) => event.event === 'error');
    expect(error.data).toMatchObject({ error: { code: 'session_expired' } });
    // Refused before any stream from now on.
    expect((await call(`${EVENTS}?after=0`, { headers: bearer(handle) })).status).toBe(401);
  }, 20_000);

  it('the stop ends every stream at once with a reconnect hint, and does not wait on them', async () => {
    const { call, handle, relay } = await start();
    const stream = await openStream(call, handle);
    await stream.next((event) => event.event === 'status');
    const startedAt = Date.now();
    expect(await relay.drain(10_000)).toEqual({ clean: true });
    expect(Date.now() - startedAt).toBeLessThan(2000);
    expect((await stream.next((event) => event.event === 'reconnect')).data).toEqual({ reason: 'shutdown' });
  }, 20_000);

  it('refuses a stream without a handle before answering 200', async () => {
    const { call } = await start();
    const answer = await call(`${EVENTS}?after=0`);
    expect(answer.status).toBe(401);
    expect(answer.headers.get('content-type')).toMatch(/application\/json/);
  });
});
