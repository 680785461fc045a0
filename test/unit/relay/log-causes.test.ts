// Logs an operator can act on (issue 19): a request answered 5xx is logged at `warn` when the upstream caused it and
// at `error` when the relay did, with the cause; refused credentials are one `error` line per streak; Redis lost and
// back are one line each.
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createRelayApp } from '../../../src/relay/app.ts';
import { createJsonLogger } from '../../../src/relay/log.ts';
import { readSettings } from '../../../src/relay/settings.ts';
import { createRedisClient } from '../../../src/relay/shared-state/redis-client.ts';
import { createUpstreamClient, type UpstreamClient } from '../../../src/relay/upstream/index.ts';
import { freePort } from '../../support/free-port.ts';
import { startTestRedis } from '../../support/redis-server.ts';
import { createRelayHarness, FIXTURE_DIST, PUBLIC_DIR, RELAY_ORIGIN } from './relay-harness.ts';

type Line = {
  level: string;
  event?: string;
  status?: number;
  code?: string;
  cause?: string;
  message?: string;
  redis?: string;
};
const parse = (lines: string[]): Line[] => lines.map((line) => JSON.parse(line) as Line);
const requestLines = (lines: string[]) => parse(lines).filter((line) => line.event === 'request');

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A relay app whose upstream is `upstream`, logging into an array. */
function relayWith(upstream: UpstreamClient) {
  const logLines: string[] = [];
  const settings = readSettings({ NODE_ENV: 'test', PUBLIC_ORIGIN: RELAY_ORIGIN }, () => new Uint8Array(32).fill(7));
  const app = createRelayApp({
    settings,
    upstream: { client: upstream },
    files: { distDir: FIXTURE_DIST, publicDir: PUBLIC_DIR },
    observability: { logger: createJsonLogger((line) => logLines.push(line)) },
  });
  const configuration = () =>
    app.request(`${RELAY_ORIGIN}/v1/webchat-configuration?client_id=demo-client`, {
      headers: { Origin: RELAY_ORIGIN },
    });
  return { app, logLines, configuration };
}

describe('request lines for 5xx answers', () => {
  it('an upstream 500: warn, upstream_unavailable, cause http_500', async () => {
    const harness = createRelayHarness();
    cleanups.push(() => harness.close());
    harness.simulator.faults.set({ errorRate: 1, match: /webchat-configuration/ });
    const response = await harness.fromFrame('/v1/webchat-configuration?client_id=demo-client');
    expect(response.status).toBe(503);
    expect(requestLines(harness.logLines).at(-1)).toMatchObject({
      level: 'warn',
      status: 503,
      code: 'upstream_unavailable',
      cause: 'http_500',
    });
  });

  it('an upstream 429: warn, cause http_429', async () => {
    const harness = createRelayHarness();
    cleanups.push(() => harness.close());
    harness.simulator.faults.set({ rateLimitRate: 1, match: /webchat-configuration/ });
    expect((await harness.fromFrame('/v1/webchat-configuration?client_id=demo-client')).status).toBe(503);
    expect(requestLines(harness.logLines).at(-1)).toMatchObject({ level: 'warn', cause: 'http_429' });
  });

  it('an upstream that refuses connections: warn, cause connection_refused', async () => {
    const port = await freePort();
    const { logLines, configuration } = relayWith(
      createUpstreamClient({ baseUrl: `http://127.0.0.1:${port}`, username: 'u', password: 'p', timeoutMs: 2000 }),
    );
    expect((await configuration()).status).toBe(503);
    expect(requestLines(logLines).at(-1)).toMatchObject({
      level: 'warn',
      code: 'upstream_unavailable',
      cause: 'connection_refused',
    });
  });

  it('an upstream that never answers: warn, cause timeout', async () => {
    // Accepts the connection and says nothing.
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const upstream = createUpstreamClient({
      baseUrl: `http://127.0.0.1:${port}`,
      username: 'u',
      password: 'p',
      timeoutMs: 300,
    });
    cleanups.push(async () => {
      await upstream.close({ abortInFlight: true });
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    });
    const { logLines, configuration } = relayWith(upstream);
    expect((await configuration()).status).toBe(504);
    expect(requestLines(logLines).at(-1)).toMatchObject({ level: 'warn', code: 'upstream_timeout', cause: 'timeout' });
  });

  it('refused credentials: warn with cause token_rejected on the request, and one error line per streak', async () => {
    let refusals = 0;
    const harness = createRelayHarness({ password: 'not-the-password' });
    cleanups.push(() => harness.close());
    // The harness's client without the hook; this one reports refusals like server.ts does.
    const upstream = createUpstreamClient({
      baseUrl: 'http://127.0.0.1:8788',
      username: harness.simulator.seed.username,
      password: 'not-the-password',
      fetch: (input, init) => harness.simulator.fetch(input, init),
      onCredentialsRefused: () => refusals++,
      timeoutMs: 2000,
    });
    const { logLines, configuration } = relayWith(upstream);
    for (let attempt = 0; attempt < 3; attempt++) expect((await configuration()).status).toBe(503);
    expect(requestLines(logLines).map((line) => line.cause)).toEqual([
      'token_rejected',
      'token_rejected',
      'token_rejected',
    ]);
    expect(requestLines(logLines).every((line) => line.level === 'warn')).toBe(true);
    expect(refusals).toBe(1);
  });

  it('a fault of the relay itself: error, internal', async () => {
    const harness = createRelayHarness();
    cleanups.push(() => harness.close());
    const real = createUpstreamClient({
      baseUrl: 'http://127.0.0.1:8788',
      username: 'u',
      password: 'p',
      fetch: (input, init) => harness.simulator.fetch(input, init),
    });
    const { logLines, configuration } = relayWith({
      ...real,
      getWebchatConfiguration: async () => {
        throw new TypeError('a bug');
      },
    });
    expect((await configuration()).status).toBe(500);
    const lines = parse(logLines);
    expect(lines.find((line) => line.event === 'request')).toMatchObject({
      level: 'error',
      status: 500,
      code: 'internal',
    });
    // The bug's message never reaches the log (it could quote request data); its class does.
    expect(logLines.join('\n')).not.toContain('a bug');
  });

  it('4xx answers stay info', async () => {
    const harness = createRelayHarness();
    cleanups.push(() => harness.close());
    expect((await harness.fromFrame('/v1/webchat-configuration?client_id=no-such-client')).status).toBe(404);
    expect(requestLines(harness.logLines).at(-1)).toMatchObject({ level: 'info', status: 404 });
  });
});

describe('Redis lost and back', () => {
  it('one warn line when Redis goes away, one info line when it is back, however many reconnections fail between', async () => {
    const redis = await startTestRedis();
    cleanups.push(() => redis.close());
    const lines: string[] = [];
    const client = createRedisClient(
      redis.url,
      createJsonLogger((line) => lines.push(line)),
    );
    cleanups.push(() => client.disconnect());
    await client.ping();
    await redis.stop();
    // Several failed reconnections (every 200-2000 ms).
    await new Promise((resolve) => setTimeout(resolve, 2500));
    await redis.start();
    await new Promise<void>((resolve) => client.once('ready', () => resolve()));
    const redisLines = parse(lines).filter((line) => line.redis !== undefined);
    expect(redisLines.map((line) => [line.level, line.redis])).toEqual([
      ['warn', 'lost'],
      ['info', 'back'],
    ]);
  }, 20_000);
});
