// The simulator sends the relay signed upstream events (docs/simulator.md, "Upstream events"): on every new message
// (visitor, bot, team member) and every status change, fire-and-forget, at most one retry, never with message text. Received
// by a real HTTP listener; each signature is checked here with node:crypto, independently of the simulator's signer.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulatorServer, type SimulatorServer } from '../../../src/simulator/server.ts';
import { startEventListener, type Answer, type ReceivedEvent } from './events-listener.ts';

const SECRET = 'test-events-secret-0123456789';
const PATH = '/v1/upstream-events';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(
  options: { answer?: (attempt: number) => Answer; timeoutMs?: number; botReplyDelayMs?: number } = {},
) {
  let server: SimulatorServer | undefined;
  let conversationId = '';
  const listener = await startEventListener({
    ...(options.answer ? { answer: options.answer } : {}),
    // When an event arrives, how many messages has the conversation? (the bot's event must follow its stored reply)
    observe: () => server?.simulator.store.messages.get(conversationId)?.length ?? 0,
  });
  cleanups.push(() => listener.close());
  server = await startSimulatorServer({
    botReplyDelayMs: options.botReplyDelayMs ?? 50,
    agentJoinDelayMs: 60_000,
    events: {
      url: listener.url + PATH,
      secret: SECRET,
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    },
  });
  const sim = server;
  cleanups.push(() => sim.close());
  const { seed } = sim.simulator;
  const token = (
    (await (
      await fetch(`${sim.url}/api/oauth/token/`, {
        method: 'POST',
        body: new URLSearchParams({ username: seed.username, password: seed.password }),
      })
    ).json()) as { access_token: string }
  ).access_token;
  const api = (path: string, method = 'GET', body?: unknown) =>
    fetch(sim.url + path, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const staff = (path: string, method = 'POST', body?: unknown) =>
    fetch(sim.url + path, {
      method,
      headers: { 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  conversationId = (
    (await (
      await api('/api/conversations/', 'POST', { practice: seed.smileDentalPracticeId, channel: 'webchat' })
    ).json()) as { id: string }
  ).id;
  return { server: sim, listener, api, staff, id: conversationId };
}

/** Checks the request the way a relay must, and returns its parsed body. */
function verified(event: ReceivedEvent): Record<string, unknown> {
  expect(event.method).toBe('POST');
  expect(event.path).toBe(PATH);
  expect(event.headers['content-type']).toMatch(/^application\/json/);
  const header = event.headers['upstream-signature'];
  expect(typeof header).toBe('string');
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(header));
  expect(match).not.toBeNull();
  const [, t, mac] = match!;
  const expected = createHmac('sha256', SECRET).update(`${t}.${event.raw}`).digest();
  expect(timingSafeEqual(Buffer.from(mac!, 'hex'), expected)).toBe(true);
  expect(Math.abs(Number(t) - Date.now() / 1000)).toBeLessThan(300);
  const body = JSON.parse(event.raw) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['conversation', 'id', 'occurred_at', 'type']);
  expect(Number.isNaN(Date.parse(String(body.occurred_at)))).toBe(false);
  return body;
}

const waitFor = async (check: () => boolean, timeoutMs = 10_000) => {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('upstream events sent by the simulator', () => {
  it('a visitor message, the bot’s reply, a staff reply and a resolve each send signed events, in order, without text', async () => {
    // A bot delay well above an event's trip, so an event sent when the reply was scheduled would arrive first.
    const { listener, api, staff, id, server } = await setup({ botReplyDelayMs: 400 });
    const texts = ['When are you open? My tooth hurts.', 'We can see you at 9 tomorrow.'];

    expect(
      (await api(`/api/conversations/${id}/messages/`, 'POST', { text: texts[0], sender: 'visitor' })).status,
    ).toBe(201);
    await waitFor(() => listener.received.length === 2);
    // The bot's event left when its reply was stored, not when it was scheduled.
    expect(listener.received.map((event) => event.observed)).toEqual([1, 2]);

    expect((await staff(`/staff/api/conversations/${id}/messages`, 'POST', { text: texts[1] })).status).toBe(201);
    await waitFor(() => listener.received.length === 4);
    expect((await staff(`/staff/api/conversations/${id}/resolve`)).status).toBe(200);
    await waitFor(() => listener.received.length === 5);
    await server.simulator.eventsSettled();

    const bodies = listener.received.map(verified);
    expect(bodies.map((body) => body.type)).toEqual([
      'conversation.message_created', // the visitor's
      'conversation.message_created', // the bot's
      'conversation.status_changed', // agent mode, by the staff reply
      'conversation.message_created', // the staff reply
      'conversation.status_changed', // resolved
    ]);
    expect(bodies.every((body) => body.conversation === id)).toBe(true);
    expect(new Set(bodies.map((body) => body.id)).size).toBe(5);
    const bot = server.simulator.store.messages.get(id)?.[1];
    expect(bot?.sender).toBe('bot');
    const everything = listener.received.map((event) => event.raw + JSON.stringify(event.headers)).join('\n');
    for (const text of [...texts, bot!.text]) expect(everything).not.toContain(text);
    expect(everything).not.toMatch(/tooth|Monday|9 tomorrow/);
  });

  it('escalate and agent mode through the upstream API send status changes; a change that changes nothing sends none', async () => {
    const { listener, api, id, server } = await setup();
    await api(`/api/conversations/${id}/agent-mode/`, 'POST');
    await api(`/api/conversations/${id}/agent-mode/`, 'POST');
    await api(`/api/conversations/${id}/escalate/`, 'POST');
    await api(`/api/conversations/${id}/escalate/`, 'POST');
    await api(`/api/conversations/${id}/resolve/`, 'POST');
    await api(`/api/conversations/${id}/resolve/`, 'POST');
    await waitFor(() => listener.received.length >= 3);
    await server.simulator.eventsSettled();
    expect(listener.received.map(verified).map((body) => body.type)).toEqual(
      Array(3).fill('conversation.status_changed'),
    );
  });

  it('never holds up the API answer: a relay that does not answer costs the caller nothing', async () => {
    const { listener, api, id } = await setup({ answer: () => 'hang', timeoutMs: 60_000, botReplyDelayMs: 60_000 });
    const response = await api(`/api/conversations/${id}/messages/`, 'POST', { text: 'hello', sender: 'visitor' });
    expect(response.status).toBe(201);
    await waitFor(() => listener.received.length === 1);
    // The event is still in flight (the listener holds it) while the answer is long delivered.
    expect((await api(`/api/conversations/${id}/`)).status).toBe(200);
  });

  it('answers the API as usual when nothing listens at the events URL', async () => {
    const { listener, api, id, server } = await setup({ botReplyDelayMs: 60_000 });
    await listener.close();
    expect((await api(`/api/conversations/${id}/messages/`, 'POST', { text: 'hello', sender: 'visitor' })).status).toBe(
      201,
    );
    await server.simulator.eventsSettled();
    expect(server.simulator.store.messages.get(id)).toHaveLength(1);
  });

  it.each([
    ['a 503', () => 503 as Answer],
    ['a 429', () => 429 as Answer],
  ])('retries once after %s, with the same event, and then gives up', async (_name, answer) => {
    const { listener, api, id, server } = await setup({ answer, botReplyDelayMs: 60_000 });
    await api(`/api/conversations/${id}/messages/`, 'POST', { text: 'hello', sender: 'visitor' });
    await waitFor(() => listener.received.length === 2);
    await server.simulator.eventsSettled();
    expect(listener.received).toHaveLength(2);
    const [first, second] = listener.received.map(verified);
    expect(second!.id).toBe(first!.id);
  });

  it('retries once after a timeout, and not after a refusal (401)', async () => {
    const timedOut = await setup({
      answer: (attempt) => (attempt === 1 ? 'hang' : 204),
      timeoutMs: 200,
      botReplyDelayMs: 60_000,
    });
    await timedOut.api(`/api/conversations/${timedOut.id}/messages/`, 'POST', { text: 'hello', sender: 'visitor' });
    await timedOut.server.simulator.eventsSettled();
    expect(timedOut.listener.received).toHaveLength(2);
    expect(new Set(timedOut.listener.received.map(verified).map((body) => body.id)).size).toBe(1);

    const refused = await setup({ answer: () => 401, botReplyDelayMs: 60_000 });
    await refused.api(`/api/conversations/${refused.id}/messages/`, 'POST', { text: 'hello', sender: 'visitor' });
    await refused.server.simulator.eventsSettled();
    expect(refused.listener.received).toHaveLength(1);
  });

  it('refuses an events target that is not an http(s) URL or has no secret', async () => {
    await expect(startSimulatorServer({ events: { url: 'ftp://127.0.0.1/x', secret: SECRET } })).rejects.toThrow();
    await expect(startSimulatorServer({ events: { url: 'http://127.0.0.1/x', secret: '' } })).rejects.toThrow();
  });
});
