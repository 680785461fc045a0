// HEADERS_TIMEOUT_MS and REQUEST_TIMEOUT_MS on a real port: a client that trickles its headers, or its body, is cut
// off within the setting (plus Node's check interval, which the relay sets to 1 s), not after Node's defaults (about
// 60 s for headers and 300 s for the request, which a few slow clients per instance turn into pinned sockets).
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJsonLogger } from '../../../src/relay/log.ts';
import { startRelayServer, type RunningRelay } from '../../../src/relay/serve.ts';
import { readSettings } from '../../../src/relay/settings.ts';
import { createUpstreamClient } from '../../../src/relay/upstream/index.ts';
import { startSimulatorServer } from '../../../src/simulator/server.ts';

const HEADERS_TIMEOUT_MS = 1000;
const REQUEST_TIMEOUT_MS = 2000;
const KEEP_ALIVE_TIMEOUT_MS = 1000;
/** The setting, plus Node's check interval (1 s), plus room for a busy machine. */
const SLACK_MS = 2000;

let relay: RunningRelay;
let simulator: Awaited<ReturnType<typeof startSimulatorServer>>;

beforeAll(async () => {
  simulator = await startSimulatorServer({ port: 0 });
  const settings = readSettings(
    {
      NODE_ENV: 'test',
      PORT: '0',
      HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_TIMEOUT_MS),
    },
    () => new Uint8Array(32).fill(5),
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
      distDir: fileURLToPath(new URL('../../fixtures/dist', import.meta.url)),
      publicDir: fileURLToPath(new URL('../../../public', import.meta.url)),
    },
    observability: { logger: createJsonLogger(() => {}) },
  });
});
afterAll(async () => {
  await relay?.close();
  await simulator?.close();
});

/** Connects, writes `head` and then one `drip` every 200 ms; resolves with how long until the server ended it. */
function trickle(head: string, drip: string): Promise<{ closedAfterMs: number; answer: string }> {
  const { hostname, port } = new URL(relay.url);
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(Number(port), hostname);
    const startedAt = Date.now();
    let answer = '';
    let dripping: NodeJS.Timeout | undefined;
    // A bound of our own, so a server that never cuts the client fails the test instead of hanging it.
    const giveUp = setTimeout(() => {
      socket.destroy();
      resolve({ closedAfterMs: Number.POSITIVE_INFINITY, answer });
    }, 20_000);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.once('connect', () => {
      socket.write(head);
      dripping = setInterval(() => socket.writable && socket.write(drip), 200);
    });
    socket.once('close', () => {
      clearInterval(dripping);
      clearTimeout(giveUp);
      resolve({ closedAfterMs: Date.now() - startedAt, answer });
    });
    socket.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNRESET' || error.code === 'EPIPE' ? undefined : reject(error),
    );
  });
}

describe('slow clients are cut off', () => {
  it(`headers trickled one line at a time: closed within HEADERS_TIMEOUT_MS (${HEADERS_TIMEOUT_MS} ms)`, async () => {
    const { closedAfterMs, answer } = await trickle('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'X-Slow: 1\r\n');
    expect(closedAfterMs).toBeLessThan(HEADERS_TIMEOUT_MS + SLACK_MS);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  }, 30_000);

  it(`a body trickled a byte at a time: closed within REQUEST_TIMEOUT_MS (${REQUEST_TIMEOUT_MS} ms)`, async () => {
    const { host } = new URL(relay.url);
    // A create as the panel sends it (same origin, JSON), whose body never finishes arriving.
    const head = `POST /v1/conversations HTTP/1.1\r\nHost: ${host}\r\nOrigin: http://${host}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`;
    const { closedAfterMs, answer } = await trickle(head, ' ');
    expect(closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + SLACK_MS);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  }, 30_000);

  it(`an idle keep-alive connection is closed after KEEP_ALIVE_TIMEOUT_MS (${KEEP_ALIVE_TIMEOUT_MS} ms)`, async () => {
    const { closedAfterMs, answer } = await trickle('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', '');
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(closedAfterMs).toBeLessThan(KEEP_ALIVE_TIMEOUT_MS + SLACK_MS);
  }, 30_000);
});
