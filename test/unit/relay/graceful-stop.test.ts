// The graceful stop on real ports: a send in flight when the stop begins completes, new connections are refused,
// and the grace period bounds the wait. The upstream holds sends for 1.5 s (test/support/slow-upstream.ts).
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createJsonLogger } from '../../../src/relay/log.ts';
import { startRelayServer, type RunningRelay } from '../../../src/relay/serve.ts';
import { readSettings } from '../../../src/relay/settings.ts';
import { createUpstreamClient } from '../../../src/relay/upstream/index.ts';
import { startSlowUpstream } from '../../support/slow-upstream.ts';

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
    upstream: createUpstreamClient({ baseUrl: upstream.url, username: upstream.seed.username, password: upstream.seed.password, timeoutMs: settings.upstreamTimeoutMs }),
    logger: createJsonLogger(() => {}),
    distDir: FIXTURE_DIST,
    publicDir: PUBLIC_DIR,
  });
  cleanups.push(() => relay.close());
  return { relay, upstream };
}

/** Starts a conversation, then a send that the upstream holds; resolves once the send has reached the upstream. */
async function sendInFlight(relayUrl: string, upstream: Awaited<ReturnType<typeof startSlowUpstream>>) {
  const headers = { 'Content-Type': 'application/json', Origin: relayUrl };
  const created = await fetch(`${relayUrl}/v1/conversations`, { method: 'POST', headers, body: JSON.stringify({ client_id: 'demo-client' }) });
  expect(created.status).toBe(201);
  const { conversation } = (await created.json()) as { conversation: string };
  const arrived = upstream.nextSendArrives();
  const send = fetch(`${relayUrl}/v1/conversations/${conversation}/messages`, {
    method: 'POST',
    headers: { ...headers, 'Idempotency-Key': 'graceful-stop-0001' },
    body: JSON.stringify({ text: 'Can I book an appointment?' }),
  });
  // A failed send must fail the test, not hang it until the arrival that never comes.
  await Promise.race([arrived, send.then((response) => Promise.reject(new Error(`the send answered ${response.status} too early`)))]);
  return { send };
}

/** A fresh TCP connection to the relay's port: resolves "connected" or the error code. */
function tryConnect(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}

describe('graceful stop (drain)', () => {
  it('lets a send in flight finish with its 201, asks its connection to close, and refuses new connections', async () => {
    const { relay, upstream } = await start();
    const { send } = await sendInFlight(relay.url, upstream);
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
    const { send } = await sendInFlight(relay.url, upstream);
    const outcome = send.then((response) => `answered ${response.status}`, () => 'connection closed');
    expect(await relay.drain(200)).toEqual({ clean: false });
    expect(await outcome).toBe('connection closed');
  });

  it('uses SHUTDOWN_GRACE_MS when no grace is given, and a second drain is the same stop', async () => {
    const { relay, upstream } = await start({ SHUTDOWN_GRACE_MS: '100' });
    const { send } = await sendInFlight(relay.url, upstream);
    void send.catch(() => {});
    const first = relay.drain();
    expect(relay.drain()).toBe(first);
    expect(await first).toEqual({ clean: false });
  });
});
