// Redis stopped (SIGKILL, as a crash) under a real relay process: the stores raise storage errors and the HTTP layer
// answers them as the relay's storage failing, never as the upstream service. A send and End chat are refused
// `storage_unavailable` with a Retry-After, the request log carries the storage cause, and the metrics count the
// refusal; a poll goes on (a handle's liveness fails open while Redis is out of reach). Once Redis is back, a record
// the relay cannot open is a storage failure too, not an upstream one.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { digest } from '../../../src/relay/conversations/digest.ts';
import { startSimulatorServer } from '../../../src/simulator/server.ts';
import { bearer, CONVERSATION, MESSAGES } from '../../support/conversation-calls.ts';
import { freePort } from '../../support/free-port.ts';
import { startRelayProcess, type RelayProcess } from '../../support/relay-process.ts';
import { startTestRedis, type TestRedis } from '../../support/redis-server.ts';

const HANDLE_SECRET = 'Wm4tP8yR2cK6vB0nL3sX9qN5dF7hJ1gG+eA2uT8oY4k=';
const ORIGIN = 'http://127.0.0.1:1';

let redis: TestRedis;
let upstream: Awaited<ReturnType<typeof startSimulatorServer>>;
let relay: RelayProcess;
let metricsUrl: string;

beforeAll(async () => {
  // Persistent, so that Redis comes back with the live handles and records it had.
  redis = await startTestRedis({ persistent: true });
  upstream = await startSimulatorServer({ port: 0, botReplyDelayMs: 0, agentJoinDelayMs: 0 });
  const metricsPort = await freePort();
  metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  relay = await startRelayProcess({
    UPSTREAM_URL: upstream.url,
    UPSTREAM_USERNAME: upstream.simulator.seed.username,
    UPSTREAM_PASSWORD: upstream.simulator.seed.password,
    HANDLE_SECRET,
    PUBLIC_ORIGIN: ORIGIN,
    REDIS_URL: redis.url,
    METRICS_PORT: String(metricsPort),
  });
}, 40_000);
afterAll(async () => {
  await relay?.stop('SIGKILL');
  await Promise.all([upstream?.close(), redis?.close()]);
});

const headers = { Origin: ORIGIN, 'Content-Type': 'application/json' };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function metric(name: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name} `));
  return line === undefined ? 0 : Number(line.split(' ')[1]);
}

/** Visitor messages the service holds, in every conversation. */
const visitorMessages = () =>
  [...upstream.simulator.store.messages.values()].flat().filter((message) => message.sender === 'visitor').length;

const send = (handle: string, key: string, text: string) =>
  fetch(`${relay.url}${MESSAGES}`, {
    method: 'POST',
    headers: { ...headers, 'Idempotency-Key': key, ...bearer(handle) },
    body: JSON.stringify({ text }),
  });

async function errorCode(response: Response): Promise<string | undefined> {
  const body = (await response.json()) as { error?: { code: string } };
  return body.error?.code;
}

/** The request log's lines (JSON) for requests answered with `code`, once the batched writer has written them. */
async function requestLines(code: string): Promise<Record<string, unknown>[]> {
  await pause(300);
  return relay
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes('"event":"request"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.code === code);
}

it('Redis stopped: a send and End chat answer storage_unavailable with the cause logged and counted, a poll goes on; a record Redis gives back unreadable is a storage failure too', async () => {
  const created = await fetch(`${relay.url}/v1/conversations`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ client_id: 'demo-client' }),
  });
  expect(created.status).toBe(201);
  const { conversation } = (await created.json()) as { conversation: string };
  expect((await send(conversation, 'outage-key-sent-0001', 'Before the outage')).status).toBe(201);
  const refusedBefore = await metric('pwc_storage_refusals_total');

  await redis.stop();
  await expect.poll(() => metric('pwc_redis_up'), { timeout: 10_000, interval: 200 }).toBe(0);

  const refusedSend = await send(conversation, 'outage-key-down-0002', 'While Redis is away');
  expect([refusedSend.status, await errorCode(refusedSend)]).toEqual([503, 'storage_unavailable']);
  expect(Number(refusedSend.headers.get('Retry-After'))).toBeGreaterThan(0);
  const poll = await fetch(`${relay.url}${MESSAGES}?after=0`, { headers: { Origin: ORIGIN, ...bearer(conversation) } });
  expect(poll.status).toBe(200);
  const ended = await fetch(`${relay.url}${CONVERSATION}`, {
    method: 'DELETE',
    headers: { Origin: ORIGIN, ...bearer(conversation) },
  });
  expect([ended.status, await errorCode(ended)]).toEqual([503, 'storage_unavailable']);

  const refused = await requestLines('storage_unavailable');
  expect(refused.map((line) => [line.method, line.route, line.status, line.level, line.cause])).toEqual([
    ['POST', MESSAGES, 503, 'warn', 'redis_unreachable'],
    ['DELETE', CONVERSATION, 503, 'warn', 'redis_unreachable'],
  ]);
  expect(await metric('pwc_storage_refusals_total')).toBe(refusedBefore + 2);

  await redis.start();
  await expect.poll(() => metric('pwc_redis_up'), { timeout: 10_000, interval: 200 }).toBe(1);
  // The first send's record, damaged in Redis: its retry cannot be told whether it was sent, so it is refused, as
  // storage's failure, and nothing is sent again.
  const [conversationId, ...otherConversations] = upstream.simulator.store.conversations.keys();
  expect(otherConversations).toEqual([]);
  const recordKey = `pwc:idem:${digest(`${conversationId}\u0000outage-key-sent-0001`)}`;
  expect(await redis.client.exists(recordKey)).toBe(1);
  await redis.client.set(recordKey, 'not a record');
  const messagesBefore = visitorMessages();
  const retried = await send(conversation, 'outage-key-sent-0001', 'Before the outage');
  expect([retried.status, await errorCode(retried)]).toEqual([503, 'storage_unavailable']);
  expect(visitorMessages()).toBe(messagesBefore);
  expect((await requestLines('storage_unavailable')).at(-1)).toMatchObject({ cause: 'record_unreadable' });
  expect(await requestLines('upstream_unavailable')).toEqual([]);
  expect(await metric('pwc_storage_refusals_total')).toBe(refusedBefore + 3);
}, 60_000);
