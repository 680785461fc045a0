// Every route that returns a conversation's content (the poll and the live stream), and the language switch that once
// reopened it, walked through each rule of the one read policy (src/relay/conversations/read-policy.ts): a retired
// handle, an expired handle, a conversation resolved longer ago than the grace, and the statuses that may be read
// (open, and resolved within the grace). On a real port, with real clocks: the service's clock runs 16 minutes behind
// the relay's when it resolves the conversation (so the grace is over at once by the relay's clock), and an expiring
// handle is waited out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandleSealer } from '../../../src/relay/conversations/handles.ts';
import { RESOLVED_READ_GRACE_MS } from '../../../src/relay/conversations/read-policy.ts';
import { startSimulatorServer, type SimulatorServer } from '../../../src/simulator/server.ts';
import { bearer, CONVERSATION, ESCALATE, MESSAGES } from '../../support/conversation-calls.ts';
import { startCountedRelay, type FrameCall } from '../../support/counted-relay.ts';
import { readStream, type OpenedStream } from '../../support/live-stream.ts';

const EVENTS = '/v1/conversation/events';
const LANGUAGE = '/v1/conversation/language';
/** The secret startCountedRelay's relay generates for itself (its random source is fixed). */
const HANDLE_SECRET = new Uint8Array(32).fill(4);
const HISTORY = 'I am worried about my biopsy results';

let upstream: SimulatorServer;
let relay: Awaited<ReturnType<typeof startCountedRelay>>['relay'];
let call: FrameCall;
/** How far the service's clock runs behind the relay's. */
let serviceLagMs = 0;
const open: OpenedStream[] = [];

beforeAll(async () => {
  upstream = await startSimulatorServer({
    botReplyDelayMs: 600_000,
    agentJoinDelayMs: 600_000,
    now: () => Date.now() - serviceLagMs,
  });
  ({ relay, call } = await startCountedRelay(upstream, { STREAM_LIFETIME_SECONDS: '60' }));
}, 20_000);
afterAll(async () => {
  for (const stream of open) await stream.cancel();
  await relay?.close();
  await upstream?.close();
});

/** A conversation with the patient's words in its history; its handle and upstream id. */
async function conversationWithHistory() {
  const before = new Set(upstream.simulator.store.conversations.keys());
  const created = await call('/v1/conversations', { body: { client_id: 'demo-client' } });
  expect(created.status).toBe(201);
  const body = (await created.json()) as { conversation: string; expires_at: string };
  const upstreamId = [...upstream.simulator.store.conversations.keys()].find((id) => !before.has(id))!;
  upstream.simulator.writeAs(upstreamId, 'bot', HISTORY);
  return { handle: body.conversation, upstreamId, expiresAt: Date.parse(body.expires_at) };
}

async function resolveUpstream(upstreamId: string, lagMs: number) {
  serviceLagMs = lagMs;
  try {
    expect(
      (await fetch(`${upstream.url}/staff/api/conversations/${upstreamId}/resolve`, { method: 'POST' })).status,
    ).toBe(200);
  } finally {
    serviceLagMs = 0;
  }
}

const poll = (handle: string) => call(`${MESSAGES}?after=0`, { headers: bearer(handle) });

async function stream(handle: string) {
  const answer = await call(`${EVENTS}?after=0`, { headers: bearer(handle) });
  if (answer.status !== 200) return { answer, opened: null };
  const opened = readStream(answer);
  open.push(opened);
  return { answer, opened };
}

const messageEvents = (opened: OpenedStream) => opened.events.filter((event) => event.event === 'message');

/** What every route answers for a handle that is refused: 401 session_expired, with nothing of the conversation. */
async function expectRetiredEverywhere(handle: string) {
  const answers = {
    poll: await poll(handle),
    stream: await call(`${EVENTS}?after=0`, { headers: bearer(handle) }),
    send: await call(MESSAGES, {
      body: { text: 'hello again' },
      headers: { ...bearer(handle), 'Idempotency-Key': `key-${Math.random().toString(36).slice(2, 12)}` },
    }),
    escalate: await call(ESCALATE, { body: {}, headers: bearer(handle) }),
    language: await call(LANGUAGE, { method: 'PUT', body: { language: 'es' }, headers: bearer(handle) }),
    endChat: await call(CONVERSATION, { method: 'DELETE', headers: bearer(handle) }),
  };
  for (const [route, answer] of Object.entries(answers)) {
    const text = await answer.text();
    expect({
      route,
      status: answer.status,
      code: (JSON.parse(text) as { error?: { code: string } }).error?.code,
    }).toEqual({ route, status: 401, code: 'session_expired' });
    expect(text).not.toContain(HISTORY);
  }
}

describe('one read policy for every route that returns conversation content', () => {
  it('status: an open conversation, and one resolved within the grace, are read by the poll and the stream alike', async () => {
    for (const resolved of [false, true]) {
      // A conversation of its own each: the relay reuses a status it read moments ago.
      const { handle, upstreamId } = await conversationWithHistory();
      if (resolved) await resolveUpstream(upstreamId, RESOLVED_READ_GRACE_MS - 60_000);
      const polled = await poll(handle);
      expect(polled.status).toBe(200);
      const body = (await polled.json()) as { status: string; messages: { text: string }[] };
      expect(body.status).toBe(resolved ? 'resolved' : 'open');
      expect(body.messages.map((message) => message.text)).toContain(HISTORY);

      const { answer, opened } = await stream(handle);
      expect(answer.status).toBe(200);
      await opened!.next(
        (event) =>
          event.event === 'status' && (event.data as { status: string }).status === (resolved ? 'resolved' : 'open'),
      );
      expect(messageEvents(opened!).map((event) => (event.data as { text: string }).text)).toContain(HISTORY);
      await opened!.cancel();
    }
  }, 20_000);

  it('retired: after End chat, neither the poll nor the stream reads anything', async () => {
    const { handle } = await conversationWithHistory();
    const { opened } = await stream(handle);
    await opened!.next((event) => event.event === 'status');
    expect((await call(CONVERSATION, { method: 'DELETE', headers: bearer(handle) })).status).toBe(204);
    expect((await opened!.next((event) => event.event === 'error')).data).toMatchObject({
      error: { code: 'session_expired' },
    });
    await expectRetiredEverywhere(handle);
  }, 20_000);

  it('expired: a stream open when its handle expires ends then, and the expired handle reads nothing anywhere', async () => {
    const { upstreamId } = await conversationWithHistory();
    // The same conversation under a handle the relay itself would seal, expiring in 3 s: waited out for real.
    const expiresAt = Date.now() + 3000;
    const handle = createHandleSealer(HANDLE_SECRET).seal({
      clientId: 'demo-client',
      conversationId: upstreamId,
      expiresAt,
    });
    expect((await poll(handle)).status).toBe(200);
    const { opened } = await stream(handle);
    await opened!.next((event) => event.event === 'status');
    const error = await opened!.next((event) => event.event === 'error', 6000);
    expect(error.data).toMatchObject({ error: { code: 'session_expired' } });
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt - 1000);
    const before = opened!.events.indexOf(error);
    expect(opened!.events.slice(before).filter((event) => event.event === 'message')).toEqual([]);
    while (Date.now() < expiresAt) await new Promise((resolve) => setTimeout(resolve, 100));
    await expectRetiredEverywhere(handle);
  }, 20_000);

  it('resolved past the grace, seen first by the stream: it serves none of the history, and the handle is retired on every route', async () => {
    const { handle, upstreamId } = await conversationWithHistory();
    await resolveUpstream(upstreamId, RESOLVED_READ_GRACE_MS + 60_000);
    const { answer, opened } = await stream(handle);
    expect(answer.status).toBe(200);
    const error = await opened!.next((event) => event.event === 'error');
    expect(error.data).toMatchObject({ error: { code: 'conversation_resolved' } });
    expect(messageEvents(opened!)).toEqual([]);
    expect(JSON.stringify(opened!.events)).not.toContain(HISTORY);
    await expectRetiredEverywhere(handle);
  }, 20_000);

  it('resolved past the grace, seen first by the poll: 409 without the history, then retired on every route', async () => {
    const { handle, upstreamId } = await conversationWithHistory();
    await resolveUpstream(upstreamId, RESOLVED_READ_GRACE_MS + 60_000);
    const polled = await poll(handle);
    expect(polled.status).toBe(409);
    const text = await polled.text();
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'conversation_resolved' } });
    expect(text).not.toContain(HISTORY);
    await expectRetiredEverywhere(handle);
  }, 20_000);

  it('resolved past the grace, the language first: 409 without writing to the conversation, then retired on every route', async () => {
    const { handle, upstreamId } = await conversationWithHistory();
    await resolveUpstream(upstreamId, RESOLVED_READ_GRACE_MS + 60_000);
    const resolved = { ...upstream.simulator.store.conversations.get(upstreamId)! };
    const switched = await call(LANGUAGE, { method: 'PUT', body: { language: 'es' }, headers: bearer(handle) });
    expect(switched.status).toBe(409);
    expect(((await switched.json()) as { error: { code: string } }).error.code).toBe('conversation_resolved');
    // Not patched: its language and updated_at are the resolution's, so the grace cannot start again.
    expect(upstream.simulator.store.conversations.get(upstreamId)).toEqual(resolved);
    await expectRetiredEverywhere(handle);
  }, 20_000);

  it('resolved past the grace while a stream is open: the stream ends, and the handle is retired on every route', async () => {
    const { handle, upstreamId } = await conversationWithHistory();
    const { opened } = await stream(handle);
    await opened!.next((event) => event.event === 'status');
    const seen = messageEvents(opened!).length;
    await resolveUpstream(upstreamId, RESOLVED_READ_GRACE_MS + 60_000);
    // The watch's next read (an idle one: no upstream events here) finds the grace over.
    const error = await opened!.next((event) => event.event === 'error', 25_000);
    expect(error.data).toMatchObject({ error: { code: 'conversation_resolved' } });
    expect(messageEvents(opened!).length).toBe(seen);
    await expectRetiredEverywhere(handle);
  }, 40_000);
});
