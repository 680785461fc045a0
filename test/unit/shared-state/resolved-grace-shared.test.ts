// The resolved grace is one grace across relay instances: two relays on one real redis-server and one simulator, with
// one injected clock. The first instance to see the resolution keeps its time in Redis; a staff edit afterwards moves
// the service's `updated_at`, and the other instance, which has never read the conversation, still counts from the
// first sighting. What Redis keeps for it is a digest and a time, and it expires with the handle.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createJsonLogger } from '../../../src/relay/log.ts';
import { createRedisResolutionStore } from '../../../src/relay/conversations/redis-resolutions.ts';
import { RESOLVED_READ_GRACE_MS } from '../../../src/relay/conversations/read-policy.ts';
import { resolutionKey } from '../../../src/relay/conversations/resolutions.ts';
import { createRedisSharedState, type SharedState } from '../../../src/relay/stores.ts';
import { MESSAGES } from '../../support/conversation-calls.ts';
import { startTestRedis, type TestRedis } from '../../support/redis-server.ts';
import { createRelayHarness } from '../relay/relay-harness.ts';

const HISTORY = 'my biopsy results came back';
const MINUTE = 60_000;

let redis: TestRedis;
const shared: SharedState[] = [];
const harnesses: ReturnType<typeof createRelayHarness>[] = [];
beforeAll(async () => {
  redis = await startTestRedis();
});
afterEach(async () => {
  for (const harness of harnesses.splice(0)) harness.close();
  await Promise.all(shared.splice(0).map((state) => state.close()));
  await redis.client.flushall();
});
afterAll(async () => {
  await redis?.close();
});

/** Two relay instances, each with its own connection to Redis, on one simulator and one clock (from real time on). */
function twoInstances() {
  let time = Date.now();
  const now = () => time;
  const instance = (upstream?: ReturnType<typeof createRelayHarness>['simulator']) => {
    const state = createRedisSharedState(
      redis.url,
      createJsonLogger(() => {}),
    );
    shared.push(state);
    const harness = createRelayHarness({
      now,
      simulator: { now },
      ...(upstream ? { upstream } : {}),
      app: { shared: state },
    });
    harnesses.push(harness);
    return harness;
  };
  const a = instance();
  const b = instance(a.simulator);
  const advance = (ms: number) => {
    time += ms;
  };
  return { a, b, now, advance };
}

describe('the resolved grace across instances', () => {
  it('a staff edit after one instance saw the resolution does not move the grace on another', async () => {
    const { a, b, advance, now } = twoInstances();
    const handle = await a.startConversation();
    const upstreamId = [...a.simulator.store.conversations.keys()][0]!;
    const sent = await a.fromPanel(handle, MESSAGES, {
      body: { text: HISTORY },
      headers: { 'Idempotency-Key': 'history-key-0001' },
    });
    expect(sent.status).toBe(201);
    await a.resolveUpstream(upstreamId);

    advance(5 * MINUTE);
    expect((await a.fromPanel(handle, `${MESSAGES}?after=0`)).status).toBe(200);
    await a.editUpstream(upstreamId, { subject: 'Biopsy, call back' });
    expect(Date.parse(a.simulator.store.conversations.get(upstreamId)!.updated_at)).toBe(now());

    // Sixteen minutes after the resolution, eleven after the edit: the other instance reads it for the first time.
    advance(RESOLVED_READ_GRACE_MS - 5 * MINUTE + MINUTE);
    const polled = await b.fromPanel(handle, `${MESSAGES}?after=0`);
    const text = await polled.text();
    expect([polled.status, JSON.parse(text).error?.code]).toEqual([409, 'conversation_resolved']);
    expect(text).not.toContain(HISTORY);
    for (const instance of [a, b]) {
      const again = await instance.fromPanel(handle, `${MESSAGES}?after=0`);
      expect(again.status).toBe(401);
    }
  });

  it('Redis keeps a digest and a time, no id, until the handle expires', async () => {
    const { a } = twoInstances();
    const created = await a.fromFrame('/v1/conversations', { body: { client_id: 'demo-client' } });
    const { conversation: handle, expires_at } = (await created.json()) as { conversation: string; expires_at: string };
    const upstreamId = [...a.simulator.store.conversations.keys()][0]!;
    await a.resolveUpstream(upstreamId);
    expect((await a.fromPanel(handle, `${MESSAGES}?after=0`)).status).toBe(200);

    const keys = await redis.client.keys('pwc:resolved:*');
    expect(keys).toEqual([`pwc:resolved:${resolutionKey(upstreamId)}`]);
    expect(keys[0]).not.toContain(upstreamId);
    const kept = await redis.client.get(keys[0]!);
    expect(Number(kept)).toBe(Date.parse(a.simulator.store.conversations.get(upstreamId)!.updated_at));
    const expiresAt = Number(await redis.client.call('PEXPIRETIME', keys[0]!));
    expect(expiresAt).toBe(Date.parse(expires_at));
  });

  it('two instances that see the resolution keep the first time, whichever asks later', async () => {
    const stores = [0, 1].map(() => createRedisResolutionStore(redis.client, () => {}));
    const until = Date.now() + 60_000;
    expect(await stores[0]!.firstSeen('conversation-1', 1_000, until)).toBe(1_000);
    expect(await stores[1]!.firstSeen('conversation-1', 5_000, until)).toBe(1_000);
    // A reading that dates it earlier still counts from the earlier time.
    expect(await stores[1]!.firstSeen('conversation-1', 500, until)).toBe(500);
    expect(await stores[0]!.firstSeen('conversation-2', 7_000, until)).toBe(7_000);
  });

  it('while Redis is away, a reading counts from its own time (as a relay without shared state would), and says so', async () => {
    const outages: number[] = [];
    const store = createRedisResolutionStore(redis.client, () => void outages.push(1));
    await redis.stop();
    try {
      expect(await store.firstSeen('conversation-3', 4_000, Date.now() + 60_000)).toBe(4_000);
      expect(outages.length).toBeGreaterThan(0);
    } finally {
      await redis.start();
    }
  });
});
