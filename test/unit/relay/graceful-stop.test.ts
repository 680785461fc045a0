// The graceful stop on real ports: a send in flight when the stop begins completes, new connections are refused,
// and the grace period bounds the wait. The upstream holds sends for 1.5 s (test/support/slow-upstream.ts).
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createJsonLogger } from '../../../src/relay/log.ts';
import { startRelayServer, type RunningRelay } from '../../../src/relay/serve.ts';
import { readSettings } from '../../../src/relay/settings.ts';
import { createUpstreamClient } from '../../../src/relay/upstream/index.ts';
import { sendHeldByUpstream, startSlowUpstream, tryConnect } from '../../support/slow-upstream.ts';

const FIXTURE_DIST = fileURLToPath(new URL('../../fixtures/dist', import.meta.url));
const PUBLIC_DIR = fileURLToPath(new URL('../../../public', import.meta.url));
const SEND_DELAY_MS = 1500;

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.allSettled(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function start(environment: Record<string, string> = {}) {
  const upstream = await startSlowUpstream({ delayMs: SEND_DELAY_MS });
  cleanups.push(() => upstream.close());
  const settings = readSettings({ NODE_ENV: 'test', PORT: '0', ...environment }, () => new Uint8Array(32).fill(3));
  const relay: RunningRelay = await startRelayServer({
    settings,
    upstream: {
      client: createUpstreamClient({
        baseUrl: upstream.url,
        username: upstream.seed.username,
        password: upstream.seed.password,
        timeoutMs: settings.upstreamTimeoutMs,
      }),
    },
    files: { distDir: FIXTURE_DIST, publicDir: PUBLIC_DIR },
    observability: { logger: createJsonLogger(() => {}) },
  });
  cleanups.push(() => relay.close());
  return { relay, upstream };
}

describe('graceful stop (drain)', () => {
  it('lets a send in flight finish with its 201, asks its connection to close, and refuses new connections', async () => {
    const { relay, upstream } = await start();
    const { send } = await sendHeldByUpstream(relay.url, upstream, 'graceful-stop-0001', 'Can I book an appointment?');
    expect(await tryConnect(relay.url)).toBe('connected');

    const stopped = relay.drain(5000);
    expect(await tryConnect(relay.url)).toBe('ECONNREFUSED');

    const response = await send;
    expect(response.status).toBe(201);
    expect(response.headers.get('connection')).toBe('close');
    expect((await response.json()) as unknown).toMatchObject({ message: { text: 'Can I book an appointment?' } });
    expect(await stopped).toEqual({ clean: true });
    expect(upstream.sendsArrived()).toBe(1);
    // The message reached the service once.
    const texts = [...upstream.simulator.store.messages.values()].flat().map((m) => m.text);
    expect(texts.filter((text) => text === 'Can I book an appointment?')).toHaveLength(1);
  });

  it('cuts off what is still in flight when the grace period ends, and says so', async () => {
    const { relay, upstream } = await start();
    const { send } = await sendHeldByUpstream(relay.url, upstream, 'graceful-stop-0001', 'Can I book an appointment?');
    const outcome = send.then(
      (response) => `answered ${response.status}`,
      () => 'connection closed',
    );
    expect(await relay.drain(200)).toEqual({ clean: false });
    expect(await outcome).toBe('connection closed');
  });

  it('uses SHUTDOWN_GRACE_MS when no grace is given, and a second drain is the same stop', async () => {
    const { relay, upstream } = await start({ SHUTDOWN_GRACE_MS: '100' });
    const { send } = await sendHeldByUpstream(relay.url, upstream, 'graceful-stop-0001', 'Can I book an appointment?');
    void send.catch(() => {});
    const first = relay.drain();
    expect(relay.drain()).toBe(first);
    expect(await first).toEqual({ clean: false });
  });
});
