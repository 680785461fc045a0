// The whole service side on real ports, for real-port and browser tests: the simulator, and the relay talking to it
// over HTTP with the seeded account. Log lines are captured for assertions.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { startSimulatorServer } from '../../src/simulator/server.ts';
import type { SimulatorOptions } from '../../src/simulator/app.ts';
import { createJsonLogger } from '../../src/relay/log.ts';
import type { RelayMetrics } from '../../src/relay/metrics/metrics.ts';
import { startRelayServer } from '../../src/relay/serve.ts';
import { readSettings } from '../../src/relay/settings.ts';
import { createUpstreamClient } from '../../src/relay/upstream/index.ts';
import { freePort } from './free-port.ts';

export const BUILT_DIST = fileURLToPath(new URL('../../dist', import.meta.url));
export const FIXTURE_DIST = fileURLToPath(new URL('../fixtures/dist', import.meta.url));
const PUBLIC_DIR = fileURLToPath(new URL('../../public', import.meta.url));

export interface ProductOptions {
  /** Which browser files the relay serves: the real build (default) or the small fixture. */
  distDir?: string;
  environment?: Record<string, string>;
  simulator?: SimulatorOptions;
  /** Port for the relay; 0 = any free port. A test that restarts the relay passes the port it had. */
  relayPort?: number;
  /**
   * The host name browsers reach the relay by, when it is not a loopback one (chat.vendor-relay.test, which the test
   * browser maps to 127.0.0.1). The relay never takes its origin from a non-loopback Host, so the product names it in
   * PUBLIC_ORIGIN, on a port chosen up front.
   */
  relayHost?: string;
  /** Where the relay and its upstream client count (a Prometheus registry's, say); none by default. */
  metrics?: RelayMetrics;
  /**
   * The simulator sends the relay its signed events (UPSTREAM_EVENTS_SECRET), so that a message stored upstream wakes
   * the relay's watch of its conversation at once, as a service that sends events does. Off by default: watches read
   * upstream on their own cadence.
   */
  upstreamEvents?: boolean;
}

export async function startProduct({
  distDir = BUILT_DIST,
  environment = {},
  simulator: simulatorOptions = {},
  relayPort = 0,
  relayHost,
  metrics,
  upstreamEvents = false,
}: ProductOptions = {}) {
  // The simulator's events need the relay's address before the relay starts.
  const port = (relayHost !== undefined || upstreamEvents) && relayPort === 0 ? await freePort() : relayPort;
  const eventsSecret = upstreamEvents ? randomBytes(32).toString('base64url') : undefined;
  const upstream = await startSimulatorServer({
    port: 0,
    botReplyDelayMs: 50,
    agentJoinDelayMs: 100,
    ...(eventsSecret === undefined
      ? {}
      : { events: { url: `http://127.0.0.1:${port}/v1/upstream-events`, secret: eventsSecret } }),
    ...simulatorOptions,
  });
  const publicOrigin = relayHost === undefined ? {} : { PUBLIC_ORIGIN: `http://${relayHost}:${port}` };
  const eventsSetting = eventsSecret === undefined ? {} : { UPSTREAM_EVENTS_SECRET: eventsSecret };
  const settings = readSettings(
    { NODE_ENV: 'test', PORT: String(port), ...publicOrigin, ...eventsSetting, ...environment },
    () => new Uint8Array(32).fill(9),
  );
  const logLines: string[] = [];
  const relayOptions = {
    settings,
    upstream: {
      client: createUpstreamClient({
        baseUrl: upstream.url,
        username: upstream.simulator.seed.username,
        password: upstream.simulator.seed.password,
        timeoutMs: settings.upstreamTimeoutMs,
        ...(metrics === undefined ? {} : { metrics }),
      }),
    },
    files: { distDir, publicDir: PUBLIC_DIR },
    observability: { logger: createJsonLogger((line) => logLines.push(line)), metrics },
  };
  let relay = await startRelayServer(relayOptions);
  const listeningPort = Number(new URL(relay.url).port);

  return {
    relayUrl: relay.url,
    upstream,
    simulator: upstream.simulator,
    logLines,
    /** Stops the relay (its port stays known) — the "relay goes down" fault. */
    stopRelay: () => relay.close(),
    /** Starts the relay again on the same port, with the same handle secret. */
    restartRelay: async () => {
      relay = await startRelayServer({ ...relayOptions, settings: { ...settings, port: listeningPort } });
    },
    close: async () => {
      await Promise.allSettled([relay.close(), upstream.close()]);
    },
  };
}
