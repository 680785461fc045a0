// Issue 18, point 2: a retried create left empty conversations upstream, since creating was not idempotent. The panel
// now sends an Idempotency-Key with POST /v1/conversations: the same key gives the same handle, on any instance, and
// no second upstream conversation.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createJsonLogger } from '../../../src/relay/log.ts';
import { createRedisStores, type RelayStores } from '../../../src/relay/shared-state/stores.ts';
import { startTestRedis, type TestRedis } from '../../support/redis-server.ts';
import { createRelayHarness } from './relay-harness.ts';

const harnesses: ReturnType<typeof createRelayHarness>[] = [];
const stores: RelayStores[] = [];
let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterEach(async () => {
  harnesses.splice(0).forEach((harness) => harness.close());
  await Promise.all(stores.splice(0).map((store) => store.close()));
});
afterAll(async () => {
  await redis?.close();
});

const create = (harness: ReturnType<typeof createRelayHarness>, key: string | undefined, clientId = 'demo-client') =>
  harness.fromFrame('/v1/conversations', { body: { client_id: clientId }, headers: key === undefined ? {} : { 'Idempotency-Key': key } });

describe('POST /v1/conversations with an Idempotency-Key', () => {
  it('the same key gives the same handle and opens one upstream conversation; the retry costs no quota', async () => {
    const harness = createRelayHarness({ environment: { CONVERSATIONS_PER_HOUR_PER_IP: '1' } });
    harnesses.push(harness);
    const first = await create(harness, 'create-key-0001');
    const retry = await create(harness, 'create-key-0001');
    expect([first.status, retry.status]).toEqual([201, 201]);
    expect(await retry.json()).toEqual(await first.json());
    expect(harness.simulator.store.conversations.size).toBe(1);
    // Another key is another conversation, and that one is over the quota of one.
    expect((await create(harness, 'create-key-0002')).status).toBe(429);
  });

  it('the same key under another configuration never hands out the first handle', async () => {
    const harness = createRelayHarness();
    harnesses.push(harness);
    const first = await create(harness, 'create-key-0003');
    expect(first.status).toBe(201);
    // Keys are kept per configuration: this one is looked up afresh (and the simulator has no such configuration).
    const other = await create(harness, 'create-key-0003', 'other-client');
    expect(other.status).toBe(404);
    expect(await other.text()).not.toContain((await first.json()).conversation);
  });

  it('refuses a malformed key before creating anything', async () => {
    const harness = createRelayHarness();
    harnesses.push(harness);
    const response = await create(harness, 'short');
    expect(response.status).toBe(400);
    expect(harness.simulator.store.conversations.size).toBe(0);
  });

  it('on another instance sharing Redis: the same handle, one upstream conversation', async () => {
    const [a, b] = [0, 1].map(() => {
      const shared = createRedisStores(redis.url, createJsonLogger(() => {}));
      stores.push(shared);
      return createRelayHarness({ app: { stores: shared } });
    });
    harnesses.push(a!, b!);
    // One upstream for both instances, as in the field.
    b!.simulator.fetch = a!.simulator.fetch.bind(a!.simulator);
    const first = await create(a!, 'create-key-0004');
    const retry = await create(b!, 'create-key-0004');
    expect([first.status, retry.status]).toEqual([201, 201]);
    expect((await retry.json()).conversation).toBe((await first.json()).conversation);
    expect(a!.simulator.store.conversations.size).toBe(1);
  });
});
