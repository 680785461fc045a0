// /readyz with a real redis-server behind REDIS_URL, over a real port: ready throughout, reporting Redis ok while it
// answers, unreachable while it is down (a Redis outage must not take every instance out of rotation), ok again once
// it is back (what the relay does without Redis, test/unit/shared-state/redis-stores.test.ts). A drain closes the
// relay's own Redis connection.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJsonLogger } from '../../../src/relay/log.ts';
import { startRelayServer, type RunningRelay } from '../../../src/relay/serve.ts';
import { readSettings } from '../../../src/relay/settings.ts';
import { createUpstreamClient } from '../../../src/relay/upstream/index.ts';
import { startSimulatorServer } from '../../../src/simulator/server.ts';
import { startTestRedis, type TestRedis } from '../../support/redis-server.ts';

const FIXTURE_DIST = fileURLToPath(new URL('../../fixtures/dist', import.meta.url));
const PUBLIC_DIR = fileURLToPath(new URL('../../../public', import.meta.url));

let redis: TestRedis;
let simulator: Awaited<ReturnType<typeof startSimulatorServer>>;
let relay: RunningRelay;
beforeAll(async () => {
  redis = await startTestRedis();
  simulator = await startSimulatorServer({ port: 0 });
  const settings = readSettings({ NODE_ENV: 'test', PORT: '0', REDIS_URL: redis.url }, () =>
    new Uint8Array(32).fill(5),
  );
  relay = await startRelayServer({
    settings,
    upstream: {
      client: createUpstreamClient({
        baseUrl: simulator.url,
        username: simulator.simulator.seed.username,
        password: simulator.simulator.seed.password,
      }),
    },
    files: {
      distDir: FIXTURE_DIST,
      publicDir: PUBLIC_DIR,
    },
    observability: { logger: createJsonLogger(() => {}) },
  });
});
afterAll(async () => {
  await relay?.close();
  await simulator?.close();
  await redis?.close();
});

async function readiness(): Promise<{
  status: number;
  body: { status: string; dependencies?: Record<string, string> };
}> {
  const response = await fetch(`${relay.url}/readyz`);
  return { status: response.status, body: await response.json() };
}

/** Asks until `wanted` holds, for at most 10 s (Redis reconnects with a backoff): a bound, not a timing assertion. */
async function eventually(wanted: (answer: Awaited<ReturnType<typeof readiness>>) => boolean) {
  const giveUpAt = Date.now() + 10_000;
  let answer = await readiness();
  while (!wanted(answer) && Date.now() < giveUpAt) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    answer = await readiness();
  }
  return answer;
}

/** How many clients the Redis server has besides the test's own. */
async function relayClients(): Promise<number> {
  const list = (await redis.client.client('LIST')) as string;
  return list.trim().split('\n').length - 1;
}

describe('/readyz with REDIS_URL (real redis-server)', () => {
  it('stays ready while Redis is down, reporting it unreachable, and ready once it is back', async () => {
    const first = await eventually((a) => a.body.dependencies?.redis === 'ok');
    expect(first).toMatchObject({
      status: 200,
      body: { status: 'ready', dependencies: { upstream_token: 'none yet', redis: 'ok' } },
    });
    await redis.stop();
    const down = await eventually((a) => a.body.dependencies?.redis === 'unreachable');
    expect(down).toMatchObject({
      status: 200,
      body: { status: 'ready', instance: { event_loop: 'responsive' }, dependencies: { redis: 'unreachable' } },
    });
    // And this instance does serve what needs no Redis (its quota fails open): here, the loader's configuration.
    expect((await fetch(`${relay.url}/v1/webchat-configuration?client_id=demo-client`)).status).toBe(200);
    await redis.start();
    expect(await eventually((a) => a.body.dependencies?.redis === 'ok')).toMatchObject({
      status: 200,
      body: { status: 'ready' },
    });
  }, 30_000);

  it("a drain closes the relay's Redis connection once the last request is answered", async () => {
    expect(await relayClients()).toBeGreaterThan(0);
    expect(await relay.drain(2000)).toEqual({ clean: true });
    const giveUpAt = Date.now() + 5000;
    while ((await relayClients()) > 0 && Date.now() < giveUpAt) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await relayClients()).toBe(0);
  }, 15_000);
});
