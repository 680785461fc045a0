// POST /v1/upstream-events on a real port: a valid signed event makes the watching instance read the conversation at
// once (the idle watch would otherwise wait 15 s); a forged, stale, replayed, oversized or malformed event is refused
// and costs no upstream call; with REDIS_URL an event sent to one instance reaches the stream held by another.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { signEvent } from '../../../src/relay/live/event-signature.ts';
import { UPSTREAM_EVENTS_PATH } from '../../../src/relay/upstream/contract.ts';
import { startSimulatorServer, type SimulatorServer } from '../../../src/simulator/server.ts';
import { bearer } from '../../support/conversation-calls.ts';
import { readStream } from '../../support/live-stream.ts';
import { startCountedRelay } from '../../support/counted-relay.ts';
import { startTestRedis } from '../../support/redis-server.ts';

const SECRET = randomBytes(32).toString('base64');
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A relay whose upstream reads are counted (test/support/counted-relay.ts); `secret: null` leaves events off. */
async function startRelay(
  simulator: SimulatorServer,
  { secret = SECRET as string | null, redisUrl }: { secret?: string | null; redisUrl?: string } = {},
) {
  const { relay, call, reads } = await startCountedRelay(simulator, {
    ...(secret === null ? {} : { UPSTREAM_EVENTS_SECRET: secret }),
    ...(redisUrl === undefined ? {} : { REDIS_URL: redisUrl }),
  });
  cleanups.push(() => relay.close());
  /** The service's call: `body` as raw text, signed unless a header is given. */
  const postEvent = (body: string, signature = signEvent(SECRET, Math.floor(Date.now() / 1000), body)) =>
    fetch(`${relay.url}${UPSTREAM_EVENTS_PATH}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Upstream-Signature': signature },
      body,
    });
  return { relay, call, postEvent, reads };
}

async function startSimulator() {
  // The bot stays quiet, so every message in these conversations is one the test wrote.
  const simulator = await startSimulatorServer({ botReplyDelayMs: 60_000, agentJoinDelayMs: 60_000 });
  cleanups.push(() => simulator.close());
  return simulator;
}

/** A conversation created through `relay`, its handle, and its upstream id (the simulator's newest). */
async function newConversation(simulator: SimulatorServer, call: Awaited<ReturnType<typeof startRelay>>['call']) {
  const created = await call('/v1/conversations', {
    body: { client_id: 'demo-client' },
    headers: { 'Idempotency-Key': `events-${randomBytes(16).toString('hex')}` },
  });
  const handle = ((await created.json()) as { conversation: string }).conversation;
  const upstreamId = [...simulator.simulator.store.conversations.keys()].at(-1)!;
  return { handle, upstreamId };
}

async function openStream(call: Awaited<ReturnType<typeof startRelay>>['call'], handle: string) {
  const stream = readStream(await call('/v1/conversation/events?after=0', { headers: bearer(handle) }));
  cleanups.push(() => stream.cancel());
  await stream.next((event) => event.event === 'status');
  return stream;
}

const eventBody = (conversation: string, id = `evt_${randomBytes(8).toString('hex')}`) =>
  JSON.stringify({ id, type: 'conversation.message_created', conversation, occurred_at: new Date().toISOString() });

/** Lets any read a wrong event could have started happen, so a count taken after it is final. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describe('POST /v1/upstream-events', () => {
  it("a valid event makes the idle watch read at once: the team member's reply arrives well before the 15 s idle read", async () => {
    const simulator = await startSimulator();
    const { call, postEvent } = await startRelay(simulator);
    const { handle, upstreamId } = await newConversation(simulator, call);
    const stream = await openStream(call, handle);
    simulator.simulator.writeAs(upstreamId, 'agent', 'The doctor can see you at 3.');
    expect((await postEvent(eventBody(upstreamId))).status).toBe(204);
    // The idle watch's next read is 13.5-16.5 s away; only the event can bring the reply this soon.
    const reply = await stream.next((event) => event.event === 'message', 5000);
    expect(reply.data).toMatchObject({ sender: 'agent', text: 'The doctor can see you at 3.' });
  }, 20_000);

  it('a status event shows a change made without a message (staff resolve), which the kept status reading would hide', async () => {
    const simulator = await startSimulator();
    const { call, postEvent } = await startRelay(simulator);
    const { handle, upstreamId } = await newConversation(simulator, call);
    // The stream's first read took a status reading just now; a poll would reuse it for 10 s.
    const stream = await openStream(call, handle);
    const resolved = await fetch(`${simulator.url}/staff/api/conversations/${upstreamId}/resolve`, {
      method: 'POST',
      headers: { Origin: simulator.url },
    });
    expect(resolved.status).toBe(200);
    const body = JSON.stringify({
      id: `evt_${randomBytes(8).toString('hex')}`,
      type: 'conversation.status_changed',
      conversation: upstreamId,
      occurred_at: new Date().toISOString(),
    });
    expect((await postEvent(body)).status).toBe(204);
    const status = await stream.next(
      (event) => event.event === 'status' && (event.data as { status: string }).status === 'resolved',
      5000,
    );
    expect(status.data).toMatchObject({ status: 'resolved' });
  }, 20_000);

  it('refuses a forged, a stale and a malformed event, and none of them reads the upstream', async () => {
    const simulator = await startSimulator();
    const { call, postEvent, reads } = await startRelay(simulator);
    const { handle, upstreamId } = await newConversation(simulator, call);
    const stream = await openStream(call, handle);
    await settle();
    const before = reads();

    const body = eventBody(upstreamId);
    const forged = await postEvent(
      body,
      signEvent('another secret entirely, 32+ chars long', Math.floor(Date.now() / 1000), body),
    );
    expect(forged.status).toBe(401);
    expect(await forged.json()).toMatchObject({ error: { code: 'bad_signature' } });
    // Signed over another body: the signature covers every byte.
    expect(
      (
        await postEvent(
          body.replace('message_created', 'status_changed'),
          signEvent(SECRET, Math.floor(Date.now() / 1000), body),
        )
      ).status,
    ).toBe(401);
    const sixMinutesAgo = Math.floor(Date.now() / 1000) - 360;
    expect((await postEvent(body, signEvent(SECRET, sixMinutesAgo, body))).status).toBe(401);
    const sixMinutesAhead = Math.floor(Date.now() / 1000) + 360;
    expect((await postEvent(body, signEvent(SECRET, sixMinutesAhead, body))).status).toBe(401);
    expect((await postEvent(body, 'not a signature')).status).toBe(401);
    expect(
      (
        await postEvent(
          JSON.stringify({
            id: 'x',
            type: 'conversation.deleted',
            conversation: upstreamId,
            occurred_at: new Date().toISOString(),
          }),
        )
      ).status,
    ).toBe(400);
    expect((await postEvent('{"id":')).status).toBe(400);
    expect((await postEvent(JSON.stringify({ id: 'x', pad: 'a'.repeat(5000) }))).status).toBe(413);

    await settle();
    expect(reads()).toBe(before);
    expect(stream.events.filter((event) => event.event === 'message')).toEqual([]);
  }, 20_000);

  it('a replayed event (the same id again) is answered 204 and reads nothing', async () => {
    const simulator = await startSimulator();
    const { call, postEvent, reads } = await startRelay(simulator);
    const { handle, upstreamId } = await newConversation(simulator, call);
    await openStream(call, handle);
    const body = eventBody(upstreamId);
    expect((await postEvent(body)).status).toBe(204);
    await settle();
    const afterFirst = reads();
    expect(afterFirst).toBeGreaterThan(0);
    expect((await postEvent(body)).status).toBe(204);
    await settle();
    expect(reads()).toBe(afterFirst);
  }, 20_000);

  it('an event for a conversation nobody watches here reads nothing', async () => {
    const simulator = await startSimulator();
    const { call, postEvent, reads } = await startRelay(simulator);
    const { upstreamId } = await newConversation(simulator, call);
    const before = reads();
    expect((await postEvent(eventBody(upstreamId))).status).toBe(204);
    await settle();
    expect(reads()).toBe(before);
  }, 20_000);

  it('without UPSTREAM_EVENTS_SECRET the path does not exist', async () => {
    const simulator = await startSimulator();
    const { postEvent } = await startRelay(simulator, { secret: null });
    expect((await postEvent(eventBody('cnv_x'))).status).toBe(404);
  }, 20_000);

  it('with REDIS_URL, an event sent to one instance wakes the stream another instance holds', async () => {
    const redis = await startTestRedis();
    cleanups.push(() => redis.close());
    const simulator = await startSimulator();
    const holder = await startRelay(simulator, { redisUrl: redis.url });
    const receiver = await startRelay(simulator, { redisUrl: redis.url });
    const { handle, upstreamId } = await newConversation(simulator, holder.call);
    const stream = await openStream(holder.call, handle);
    simulator.simulator.writeAs(upstreamId, 'agent', 'Your prescription is ready.');
    const body = eventBody(upstreamId);
    expect((await receiver.postEvent(body)).status).toBe(204);
    const reply = await stream.next((event) => event.event === 'message', 5000);
    expect(reply.data).toMatchObject({ sender: 'agent', text: 'Your prescription is ready.' });
    // The receiver watches nothing: it read nothing itself.
    expect(receiver.reads()).toBe(0);
    // The same event replayed to the other instance: the ids are shared, so it wakes nothing there either.
    await settle();
    const holderReads = holder.reads();
    expect((await holder.postEvent(body)).status).toBe(204);
    await settle();
    expect(holder.reads()).toBe(holderReads);
  }, 30_000);
});
