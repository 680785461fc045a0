// Several relay processes behind one round-robin address, sharing HANDLE_SECRET, PUBLIC_ORIGIN and REDIS_URL, with the
// simulator as the upstream (counted there): a message retried on another instance reaches the practice once, a
// quota is one quota, and Redis going away loses and duplicates nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatorServer } from '../../../src/simulator/server.ts';
import { freePort } from '../../support/free-port.ts';
import { bearer, MESSAGES } from '../../support/conversation-calls.ts';
import { startRelayProcess, type RelayProcess } from '../../support/relay-process.ts';
import { startRoundRobinProxy, type RoundRobinProxy } from '../../support/round-robin-proxy.ts';
import { startTestRedis, type TestRedis } from '../../support/redis-server.ts';

const HANDLE_SECRET = 'mI4vQ8tZ2wK6yR0pL3sX9bN5cF7hJ1dG+eA2uT8oY4k=';
const CONVERSATIONS = 10;
const MESSAGES_EACH = 20;

let redis: TestRedis;
let upstream: Awaited<ReturnType<typeof startSimulatorServer>>;
let relays: RelayProcess[] = [];
let proxy: RoundRobinProxy;

async function startInstances(count: number, extra: Record<string, string> = {}) {
  // Each test starts from an empty shared state (the quotas of the one before would still count).
  await redis.client.flushall();
  const proxyPort = await freePort();
  const environment = {
    UPSTREAM_URL: upstream.url,
    UPSTREAM_USERNAME: upstream.simulator.seed.username,
    UPSTREAM_PASSWORD: upstream.simulator.seed.password,
    HANDLE_SECRET,
    PUBLIC_ORIGIN: `http://127.0.0.1:${proxyPort}`,
    REDIS_URL: redis.url,
    REQUESTS_PER_MINUTE_PER_IP: '100000',
    MESSAGES_PER_MINUTE_PER_CONVERSATION: '1000',
    ...extra,
  };
  relays = await Promise.all(Array.from({ length: count }, () => startRelayProcess(environment)));
  proxy = await startRoundRobinProxy(() => relays.map((relay) => relay.url), proxyPort);
}

async function stopInstances() {
  await proxy?.close();
  await Promise.all(relays.map((relay) => relay.stop('SIGKILL')));
  relays = [];
}

beforeAll(async () => {
  // With persistence, as the README asks of production: Redis stopped and back keeps its data (live handles too).
  redis = await startTestRedis({ persistent: true });
  upstream = await startSimulatorServer({ port: 0, botReplyDelayMs: 0, agentJoinDelayMs: 0 });
}, 30_000);
afterAll(async () => {
  await stopInstances();
  await Promise.all([upstream?.close(), redis?.close()]);
});

const origin = () => proxy.url;
async function createConversation(base = proxy.url): Promise<Response> {
  return fetch(`${base}/v1/conversations`, {
    method: 'POST',
    headers: { Origin: origin(), 'Content-Type': 'application/json' },
    body: JSON.stringify({ client_id: 'demo-client' }),
  });
}
function send(base: string, handle: string, key: string, text: string): Promise<Response> {
  return fetch(`${base}${MESSAGES}`, {
    method: 'POST',
    headers: { Origin: origin(), 'Content-Type': 'application/json', 'Idempotency-Key': key, ...bearer(handle) },
    body: JSON.stringify({ text }),
  });
}

/** What the panel does: the same key again after a retryable answer or a dropped connection, until it is sent. */
async function sendUntilSent(
  base: () => string,
  handle: string,
  key: string,
  text: string,
): Promise<{ id: string; attempts: number }> {
  for (let attempt = 1; attempt <= 60; attempt++) {
    const response = await send(base(), handle, key, text).catch(() => null);
    if (response?.status === 201)
      return { id: ((await response.json()) as { message: { id: string } }).message.id, attempts: attempt };
    if (response !== null && ![429, 503, 504].includes(response.status))
      throw new Error(`unexpected ${response.status}: ${await response.text()}`);
    const retryAfter = Number(response?.headers.get('Retry-After') ?? 0);
    await new Promise((resolve) => setTimeout(resolve, Math.min(retryAfter * 1000, 500) || 100));
  }
  throw new Error('not sent after 60 attempts');
}

/** The visitor messages the practice received, per upstream conversation, in order. */
function upstreamVisitorTexts(): string[][] {
  return [...upstream.simulator.store.messages.values()].map((messages) =>
    messages.filter((message) => message.sender === 'visitor').map((message) => message.text),
  );
}

describe('several relay instances behind one address, sharing Redis', () => {
  it(`${CONVERSATIONS * MESSAGES_EACH} messages, each retried on another instance (some at the same moment), reach the practice exactly once and in order`, async () => {
    await startInstances(3);
    const before = upstreamVisitorTexts().flat().length;
    let concurrentPairs = 0;
    let sameAnswers = 0;
    await Promise.all(
      Array.from({ length: CONVERSATIONS }, async (_, conversation) => {
        const created = await createConversation();
        expect(created.status).toBe(201);
        const { conversation: handle } = (await created.json()) as { conversation: string };
        for (let index = 0; index < MESSAGES_EACH; index++) {
          const text = `conversation ${conversation} message ${index}`;
          const key = `key-${conversation}-${index}-multi`;
          const first = relays[(conversation + index) % relays.length]!.url;
          const other = relays[(conversation + index + 1) % relays.length]!.url;
          if (index % 4 === 0) {
            // The same key to two instances at the same moment (a retry racing the first attempt).
            concurrentPairs++;
            const [a, b] = await Promise.all([send(first, handle, key, text), send(other, handle, key, text)]);
            expect([a.status, b.status]).toEqual([201, 201]);
            const [one, two] = await Promise.all([a.json(), b.json()]);
            if (one.message.id === two.message.id) sameAnswers++;
          } else {
            // Sent on one instance, retried on another after it went through (its answer was lost on the way).
            const a = await send(first, handle, key, text);
            expect(a.status).toBe(201);
            const b = await send(other, handle, key, text);
            expect(b.status).toBe(201);
            if ((await a.json()).message.id === (await b.json()).message.id) sameAnswers++;
          }
        }
      }),
    );
    const received = upstreamVisitorTexts().flat().length - before;
    console.log(
      `several instances: ${CONVERSATIONS * MESSAGES_EACH} messages sent (each twice, ${concurrentPairs} pairs at the same moment) through 3 instances → ${received} upstream; ${sameAnswers} retries answered with the first's result`,
    );
    expect(received).toBe(CONVERSATIONS * MESSAGES_EACH);
    expect(sameAnswers).toBe(CONVERSATIONS * MESSAGES_EACH);
    for (const texts of upstreamVisitorTexts().filter((texts) =>
      texts.some((text) => text.startsWith('conversation ')),
    )) {
      const indexes = texts.map((text) => Number(/message (\d+)$/.exec(text)![1]));
      expect(indexes).toEqual([...indexes].sort((a, b) => a - b));
      expect(new Set(indexes).size).toBe(MESSAGES_EACH);
    }
    await stopInstances();
  }, 120_000);

  it('a quota holds across instances: 6 conversations an hour per address means 6 in all, then 429 with Retry-After', async () => {
    await startInstances(3, { CONVERSATIONS_PER_HOUR_PER_IP: '6' });
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let index = 0; index < 9; index++) {
      const response = await createConversation();
      statuses.push(response.status);
      if (response.status === 429) retryAfter = response.headers.get('Retry-After');
    }
    console.log(
      `several instances: 9 conversations asked through 3 instances with CONVERSATIONS_PER_HOUR_PER_IP=6 → ${statuses.join(' ')}`,
    );
    expect(statuses.filter((status) => status === 201)).toHaveLength(6);
    expect(statuses.filter((status) => status === 429)).toHaveLength(3);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    await stopInstances();
  }, 60_000);

  it('an answer lost after the practice stored the message: the retry on another instance reads it back instead of sending twice', async () => {
    await startInstances(2);
    const created = await createConversation();
    const { conversation: handle } = (await created.json()) as { conversation: string };
    const before = upstreamVisitorTexts().flat().length;
    upstream.simulator.faults.set({ dropAfterHandlingRate: 1, match: /messages\/$/ });
    const first = await send(relays[0]!.url, handle, 'key-lost-answer-1', 'Is the office open on Saturday?');
    upstream.simulator.faults.reset();
    expect([503, 504]).toContain(first.status);
    // The other instance reads the conversation back at once: the message is there, so it is the answer, whatever
    // time is left of the settle window.
    const retry = await send(relays[1]!.url, handle, 'key-lost-answer-1', 'Is the office open on Saturday?');
    expect(retry.status).toBe(201);
    const received = upstreamVisitorTexts().flat().length - before;
    console.log(`several instances: an answer lost on one instance, retried on another → ${received} upstream`);
    expect(received).toBe(1);
    await stopInstances();
  }, 60_000);

  it('SIGTERM to one instance during sends (a deploy): every send in flight completes, and the instance exits cleanly', async () => {
    await startInstances(2);
    const handles = await Promise.all(
      Array.from(
        { length: 6 },
        async () => ((await (await createConversation()).json()) as { conversation: string }).conversation,
      ),
    );
    const before = upstreamVisitorTexts().flat().length;
    // The practice's service is slow to answer, so the sends are still in flight when the deploy begins.
    upstream.simulator.faults.set({ latencyMs: 1_000, match: /messages\/$/ });
    const leaving = relays[0]!;
    const inFlight = handles.map((handle, index) =>
      send(leaving.url, handle, `key-deploy-${index}`, `sent during a deploy ${index}`),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const exitCode = leaving.stop('SIGTERM');
    const statuses = await Promise.all(
      inFlight.map((response) =>
        response.then(
          (answer) => answer.status,
          () => 0,
        ),
      ),
    );
    upstream.simulator.faults.reset();
    const received = upstreamVisitorTexts().flat().length - before;
    console.log(
      `several instances: SIGTERM with ${handles.length} sends in flight → answers ${statuses.join(' ')}, ${received} upstream, exit code ${await exitCode}`,
    );
    expect(statuses).toEqual(handles.map(() => 201));
    expect(received).toBe(handles.length);
    expect(await exitCode).toBe(0);
    // The other instance keeps serving the same conversations.
    relays = relays.slice(1);
    expect((await send(relays[0]!.url, handles[0]!, 'key-deploy-after', 'after the deploy')).status).toBe(201);
    await stopInstances();
  }, 60_000);

  it('Redis stopped mid-run and back: nothing lost, nothing duplicated', async () => {
    await startInstances(2);
    const before = upstreamVisitorTexts().flat().length;
    const handles = await Promise.all(
      Array.from(
        { length: 4 },
        async () => ((await (await createConversation()).json()) as { conversation: string }).conversation,
      ),
    );
    let refusedWhileDown = 0;
    const outage = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      await redis.stop();
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await redis.start();
    })();
    await Promise.all(
      handles.map(async (handle, conversation) => {
        for (let index = 0; index < 15; index++) {
          let turn = conversation + index;
          const { attempts } = await sendUntilSent(
            () => relays[turn++ % relays.length]!.url,
            handle,
            `key-outage-${conversation}-${index}`,
            `outage ${conversation} ${index}`,
          );
          refusedWhileDown += attempts - 1;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }),
    );
    await outage;
    const received = upstreamVisitorTexts().flat().length - before;
    console.log(
      `several instances: 60 messages across a Redis outage of 1.5 s → ${received} upstream, ${refusedWhileDown} attempts refused with Retry-After and retried`,
    );
    expect(received).toBe(60);
    expect(refusedWhileDown).toBeGreaterThan(0);
    await stopInstances();
  }, 120_000);
});
