// A relay wired to an in-process simulator, with its log lines captured, for tests through app.request().
import { fileURLToPath } from 'node:url';
import { createSimulator, type Simulator, type SimulatorOptions } from '../../../src/simulator/app.ts';
import {
  createRelayApp,
  type RelayAppOptions,
  type RelayObservability,
  type RelayRuntime,
} from '../../../src/relay/app.ts';
import { createJsonLogger } from '../../../src/relay/log.ts';
import { readSettings, type RelaySettings } from '../../../src/relay/settings.ts';
import { createUpstreamClient } from '../../../src/relay/upstream/index.ts';
import { bearer } from '../../support/conversation-calls.ts';

export const RELAY_ORIGIN = 'http://relay.test';
// Requests go to the simulator in-process; the address only shapes the URLs it builds (its signed logo URL).
export const UPSTREAM_BASE_URL = 'http://127.0.0.1:8788';
export const FIXTURE_DIST = fileURLToPath(new URL('../../fixtures/dist', import.meta.url));
export const PUBLIC_DIR = fileURLToPath(new URL('../../../public', import.meta.url));

export interface RelayHarnessOptions {
  environment?: Record<string, string>;
  simulator?: SimulatorOptions;
  /** A simulator to talk to instead of one of its own: two harnesses given the same one are two relay instances. */
  upstream?: Simulator;
  now?: () => number;
  password?: string;
  /** The built files to serve: the fixture build unless a test needs the real one (test/unit/bundles). */
  distDir?: string;
  /** Passed on to createRelayApp: the shared state, what /readyz reports (besides the log), the stopping state. */
  app?: {
    shared?: RelayAppOptions['shared'];
    observability?: Omit<RelayObservability, 'logger'>;
    lifecycle?: RelayRuntime['lifecycle'];
  };
}

export function createRelayHarness({
  environment = {},
  simulator: simulatorOptions = {},
  upstream: givenSimulator,
  now,
  password,
  distDir = FIXTURE_DIST,
  app: appOptions = {},
}: RelayHarnessOptions = {}) {
  const simulator = givenSimulator ?? createSimulator({ botReplyDelayMs: 0, agentJoinDelayMs: 0, ...simulatorOptions });
  // Tests run as NODE_ENV=test, with the test origin named (the relay takes no origin from a non-loopback Host).
  const settings: RelaySettings = readSettings({ NODE_ENV: 'test', PUBLIC_ORIGIN: RELAY_ORIGIN, ...environment }, () =>
    new Uint8Array(32).fill(7),
  );
  const logLines: string[] = [];
  const upstream = createUpstreamClient({
    baseUrl: UPSTREAM_BASE_URL,
    username: simulator.seed.username,
    password: password ?? simulator.seed.password,
    // Late-bound, so a test can wrap the simulator's fetch after the relay exists.
    fetch: (input, init) => simulator.fetch(input, init),
    timeoutMs: settings.upstreamTimeoutMs,
    ...(now ? { now } : {}),
  });
  const app = createRelayApp({
    settings,
    upstream: {
      client: upstream,
      // The signed logo URL points at the simulator too; fetched without the upstream client (no token).
      fetchLogo: (input, init) => simulator.fetch(input, init),
    },
    files: { distDir, publicDir: PUBLIC_DIR },
    observability: { logger: createJsonLogger((line) => logLines.push(line)), ...appOptions.observability },
    shared: appOptions.shared,
    runtime: { now, lifecycle: appOptions.lifecycle },
  });

  /** A request as the frame would send it: same origin, JSON. */
  const fromFrame = (path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
    app.request(`${RELAY_ORIGIN}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: { Origin: RELAY_ORIGIN, 'Content-Type': 'application/json', ...init.headers },
      ...(init.body === undefined
        ? {}
        : { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) }),
    });

  /** A call on a conversation as the panel makes it: as fromFrame, with the handle in Authorization (a header given
   * in `init` replaces it, for tests of malformed ones). */
  const fromPanel = (
    handle: string,
    path: string,
    init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) => fromFrame(path, { ...init, headers: { ...bearer(handle), ...init.headers } });

  async function startConversation(clientId = 'demo-client'): Promise<string> {
    const response = await fromFrame('/v1/conversations', { body: { client_id: clientId } });
    if (response.status !== 201) throw new Error(`could not start a conversation: ${response.status}`);
    return ((await response.json()) as { conversation: string }).conversation;
  }

  /** A call to the service as the practice's own tools make it, with a token of their own. */
  async function asPractice(path: string, init: { method: string; body?: unknown }): Promise<Response> {
    const token = await (
      await simulator.fetch(`${UPSTREAM_BASE_URL}/api/oauth/token/`, {
        method: 'POST',
        body: new URLSearchParams({ username: simulator.seed.username, password: simulator.seed.password }),
      })
    ).json();
    return simulator.fetch(`${UPSTREAM_BASE_URL}${path}`, {
      method: init.method,
      headers: { Authorization: `Bearer ${token.access_token}`, 'Content-Type': 'application/json' },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
  }

  /** The practice resolves a conversation (the first one by default), as staff would, straight through the service. */
  async function resolveUpstream(upstreamId = [...simulator.store.conversations.keys()][0]!): Promise<void> {
    await asPractice(`/api/conversations/${upstreamId}/resolve/`, { method: 'POST' });
  }

  /** Staff change a conversation (give it a subject, say) straight through the service: its `updated_at` moves. */
  async function editUpstream(upstreamId: string, changes: { subject?: string; language?: string }): Promise<void> {
    const edited = await asPractice(`/api/conversations/${upstreamId}/`, { method: 'PATCH', body: changes });
    if (edited.status !== 200) throw new Error(`could not edit the conversation: ${edited.status}`);
  }

  return {
    app,
    simulator,
    settings,
    logLines,
    fromFrame,
    fromPanel,
    startConversation,
    resolveUpstream,
    editUpstream,
    close: () => simulator.close(),
  };
}
