// A relay on a real port (@hono/node-server) in front of a simulator, whose upstream reads are counted, and a
// `call` that makes requests as the relay's own frame does: for tests of what the live stream costs the service.
import { fileURLToPath } from 'node:url';
import { createJsonLogger } from '../../src/relay/log.ts';
import { startRelayServer, type RunningRelay } from '../../src/relay/serve.ts';
import { readSettings } from '../../src/relay/settings.ts';
import { createUpstreamClient, type UpstreamClient } from '../../src/relay/upstream/index.ts';
import type { SimulatorServer } from '../../src/simulator/server.ts';

export type FrameCall = (
  path: string,
  init?: { method?: string; body?: unknown; headers?: Record<string, string> },
) => Promise<Response>;

/** `environment` adds to NODE_ENV=test and PORT=0; the caller closes `relay`. */
export async function startCountedRelay(simulator: SimulatorServer, environment: Record<string, string> = {}) {
  const settings = readSettings({ NODE_ENV: 'test', PORT: '0', ...environment }, () => new Uint8Array(32).fill(4));
  const client = createUpstreamClient({
    baseUrl: simulator.url,
    username: simulator.simulator.seed.username,
    password: simulator.simulator.seed.password,
  });
  let reads = 0;
  let statusReads = 0;
  const upstream: UpstreamClient = {
    ...client,
    listMessagesAfter: (...args) => {
      reads += 1;
      return client.listMessagesAfter(...args);
    },
    getConversation: (...args) => {
      statusReads += 1;
      return client.getConversation(...args);
    },
  };
  const relay: RunningRelay = await startRelayServer({
    settings,
    upstream: { client: upstream },
    files: {
      distDir: fileURLToPath(new URL('../fixtures/dist', import.meta.url)),
      publicDir: fileURLToPath(new URL('../../public', import.meta.url)),
    },
    observability: { logger: createJsonLogger(() => {}) },
  });
  const call: FrameCall = (path, init = {}) =>
    fetch(`${relay.url}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: { Origin: relay.url, 'Content-Type': 'application/json', 'X-Practice-Chat': 'frame', ...init.headers },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
  /** `reads` counts message reads; `upstreamReads` counts every read, the conversation's status included. */
  return { relay, call, reads: () => reads, upstreamReads: () => reads + statusReads };
}
