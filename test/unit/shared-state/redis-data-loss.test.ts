// Issue 18, point 5: Redis without persistence brought retired handles back. After a restart of Redis (empty, as a
// server without persistence comes back), a handle that End chat had retired read the whole conversation again. A
// real redis-server is restarted here; the relay uses it as it does in production.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createJsonLogger } from '../../../src/relay/log.ts';
import { createRedisSharedState, type SharedState } from '../../../src/relay/stores.ts';
import { createRelayHarness } from '../relay/relay-harness.ts';
import { startTestRedis, type TestRedis } from '../../support/redis-server.ts';

let redis: TestRedis;
let shared: SharedState;
let harness: ReturnType<typeof createRelayHarness>;

beforeAll(async () => {
  redis = await startTestRedis();
});
afterEach(async () => {
  harness?.close();
  await shared?.close();
});
afterAll(async () => {
  await redis?.close();
});

const read = (handle: string) => harness.fromPanel(handle, '/v1/conversation/messages?after=0');
const end = (handle: string) => harness.fromPanel(handle, '/v1/conversation', { method: 'DELETE' });

/** Redis comes back empty (no RDB, no AOF), and the relay's client has reconnected to it. */
async function restartRedisEmpty() {
  await redis.stop();
  await redis.start();
  await expect.poll(() => shared.stores.readiness.redis!(), { timeout: 10_000, interval: 100 }).toBe(true);
}

describe('Redis loses its data (restart without persistence)', () => {
  it('a handle that End chat retired stays retired, and reads nothing', async () => {
    shared = createRedisSharedState(
      redis.url,
      createJsonLogger(() => {}),
    );
    harness = createRelayHarness({ app: { shared } });
    const handle = await harness.startConversation();
    expect((await read(handle)).status).toBe(200);
    expect((await end(handle)).status).toBe(204);
    expect((await read(handle)).status).toBe(401);

    await restartRedisEmpty();
    const after = await read(handle);
    expect(after.status).toBe(401);
    expect((await after.json()).error.code).toBe('session_expired');
  }, 20_000);

  it('a chat open at that moment ends (the panel starts a new one) rather than trusting a list that was lost', async () => {
    const lines: string[] = [];
    shared = createRedisSharedState(
      redis.url,
      createJsonLogger((line) => lines.push(line)),
    );
    harness = createRelayHarness({ app: { shared } });
    const open = await harness.startConversation();
    expect((await read(open)).status).toBe(200);

    await restartRedisEmpty();
    expect((await read(open)).status).toBe(401);
    // New conversations work at once.
    expect((await read(await harness.startConversation())).status).toBe(200);
    // The operator is told once why chats ended, rather than left with ordinary 401 lines.
    const dataLost = () => lines.filter((line) => line.includes('"redis":"data_lost"')).length;
    await expect.poll(dataLost, { timeout: 2_000, interval: 50 }).toBe(1);
  }, 20_000);

  it('a Redis that comes back with its data is not reported as having lost it', async () => {
    const lines: string[] = [];
    shared = createRedisSharedState(
      redis.url,
      createJsonLogger((line) => lines.push(line)),
    );
    await expect.poll(() => shared.stores.readiness.redis!(), { timeout: 10_000, interval: 100 }).toBe(true);
    // The client drops its connection and reconnects to the same Redis, data intact.
    await redis.client.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
    await expect
      .poll(() => lines.some((line) => line.includes('"redis":"back"')), { timeout: 10_000, interval: 100 })
      .toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(lines.filter((line) => line.includes('"redis":"data_lost"'))).toEqual([]);
  }, 20_000);
});
