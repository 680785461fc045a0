// `npm start`: the relay on PORT (default 8787). With no UPSTREAM_URL it also starts the upstream simulator in this
// process, on a port of its own, and points the relay at it with the seeded account, so the whole product works at
// once on a new machine.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createBatchedWriter, createJsonLogger } from './relay/log.ts';
import { noMetrics } from './relay/metrics/metrics.ts';
import { startMetricsServer } from './relay/metrics/metrics-server.ts';
import { createPrometheusMetrics } from './relay/metrics/prometheus.ts';
import { startRelayServer } from './relay/serve.ts';
import { readSettings, SettingsError, type RelaySettings } from './relay/settings.ts';
import { createUpstreamClient } from './relay/upstream/index.ts';
import { UPSTREAM_EVENTS_PATH } from './relay/upstream/contract/index.ts';
import { trustProxyWarning } from './relay/http/trusted-proxies.ts';
import { startEmbeddedSimulator } from './embedded-simulator.ts';

// Batched (see createBatchedWriter); what is still queued is written as the process exits.
const logOutput = createBatchedWriter(
  (chunk) => process.stdout.write(chunk),
  () => process.stdout.writableLength,
);
process.on('exit', () => logOutput.flush());
const logger = createJsonLogger(logOutput.write);

let settings: RelaySettings;
try {
  settings = readSettings(process.env, () => randomBytes(32));
} catch (error) {
  if (!(error instanceof SettingsError)) throw error;
  console.error(error.message);
  process.exit(1);
}

if (settings.development) {
  logger.warn(
    `Running in development mode (NODE_ENV=${process.env.NODE_ENV}): loopback addresses only unless PUBLIC_ORIGIN is set. Production (npm run serve) needs HANDLE_SECRET, PUBLIC_ORIGIN and UPSTREAM_*.`,
  );
}
const broadTrust = trustProxyWarning(settings.trustProxy);
if (broadTrust !== null) logger.warn(broadTrust);
if (settings.handleSecretGenerated) {
  logger.warn(
    'HANDLE_SECRET is not set: generated one for this run. Conversations will not survive a restart; set HANDLE_SECRET in production.',
  );
}

/** Starting to listen can fail for reasons no setting check sees (a port in use, an unknown host): name the setting. */
async function listening<T>(what: string, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
    const why =
      code === 'EADDRINUSE'
        ? 'that port is already in use'
        : code === 'ENOTFOUND' || code === 'EADDRNOTAVAIL'
          ? "that address is not one of this machine's"
          : `it failed (${code || 'unknown error'})`;
    console.error(`Could not listen for ${what}: ${why}.`);
    process.exit(1);
  }
}

// The embedded simulator sends its signed events to this relay, so the default is live: with no
// UPSTREAM_EVENTS_SECRET, one is made for this run. The relay's address must be known before it listens, so with
// PORT=0 (any free port) the simulator sends none and the watches only poll.
const embedded = settings.upstream === null;
if (embedded && startEmbeddedSimulator === null) {
  console.error(
    'UPSTREAM_URL, UPSTREAM_USERNAME and UPSTREAM_PASSWORD are required: this build of the relay has no built-in simulator (`npm start` has one; `npm run simulator` runs one on its own).',
  );
  process.exit(1);
}
if (embedded && settings.upstreamEventsSecret === null && settings.port !== 0) {
  settings = { ...settings, upstreamEventsSecret: randomBytes(32).toString('base64url') };
}
const simulatorEvents =
  embedded && settings.upstreamEventsSecret !== null && settings.port !== 0
    ? { url: `http://127.0.0.1:${settings.port}${UPSTREAM_EVENTS_PATH}`, secret: settings.upstreamEventsSecret }
    : undefined;
const simulator = embedded
  ? await listening(`the built-in simulator on 127.0.0.1:${settings.simulatorPort} (SIMULATOR_PORT)`, () =>
      startEmbeddedSimulator!({
        port: settings.simulatorPort,
        host: '127.0.0.1',
        ...(simulatorEvents === undefined ? {} : { events: simulatorEvents }),
      }),
    )
  : null;
const upstreamSettings = settings.upstream ?? {
  url: simulator!.url,
  username: simulator!.simulator.seed.username,
  password: simulator!.simulator.seed.password,
};

// Metrics only when the operator asks for a listener for them (METRICS_PORT): nothing is counted otherwise.
const prometheus = settings.metrics === null ? null : createPrometheusMetrics();
const metrics = prometheus?.metrics ?? noMetrics;

const upstream = createUpstreamClient({
  baseUrl: upstreamSettings.url,
  username: upstreamSettings.username,
  password: upstreamSettings.password,
  timeoutMs: settings.upstreamTimeoutMs,
  connections: settings.upstreamConnections,
  metrics,
  // Once per failing streak: nothing works until someone fixes the credentials, and a line per request would bury it.
  onCredentialsRefused: () =>
    logger.error(
      "The upstream service refused the relay's credentials (UPSTREAM_USERNAME, UPSTREAM_PASSWORD): no conversation can start or continue until they are fixed.",
      { cause: 'token_rejected' },
    ),
});
prometheus?.gaugeAtScrape(
  'pwc_upstream_token_valid',
  'Whether this instance holds a valid upstream access token: 1 or 0.',
  () => (upstream.tokenState().state === 'valid' ? 1 : 0),
);
prometheus?.gaugeAtScrape(
  'pwc_upstream_token_failing',
  'Whether the last upstream token request failed and no valid token is left: 1 or 0.',
  () => (upstream.tokenState().state === 'failing' ? 1 : 0),
);

const relay = await listening(`the relay on ${settings.host}:${settings.port} (HOST, PORT)`, () =>
  startRelayServer({
    settings,
    upstream: { client: upstream },
    files: {
      distDir: fileURLToPath(new URL('../dist', import.meta.url)),
      publicDir: fileURLToPath(new URL('../public', import.meta.url)),
    },
    observability: { logger, metrics },
  }),
);
const metricsServer =
  prometheus === null || settings.metrics === null
    ? null
    : await listening(`metrics on ${settings.metrics.host}:${settings.metrics.port} (METRICS_HOST, METRICS_PORT)`, () =>
        startMetricsServer({
          registry: prometheus.registry,
          host: settings.metrics!.host,
          port: settings.metrics!.port,
        }),
      );

// SIGTERM (a deploy, a container stop) or Ctrl-C: drain the relay (no new connections, requests in flight finish for
// up to SHUTDOWN_GRACE_MS), then close the upstream connections and the embedded simulator, which those requests may
// still have needed. When the grace period runs out, the upstream calls still in flight are aborted, so their requests
// answer at once, and the process exits about half a second later whatever UPSTREAM_TIMEOUT_MS is: an orchestrator's
// stop timeout a couple of seconds above SHUTDOWN_GRACE_MS is never reached. Exit 0 when every request finished, 1
// when the grace period ran out and some were cut off. A second signal stops at once.
let stopping = false;
/** The latest a stop may end, past the grace period: the settle time, closing Redis and the simulator, and slack. */
const STOP_BACKSTOP_AFTER_GRACE_MS = 1500;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) {
      logger.warn(`${signal} again: closing every connection now.`);
      void relay.close().finally(() => process.exit(1));
      return;
    }
    stopping = true;
    logger.info(
      `${signal}: stopping. No new connections; requests in flight get up to ${settings.shutdownGraceMs} ms (SHUTDOWN_GRACE_MS).`,
    );
    // Whatever hangs (a socket that will not close, a Redis that does not answer), the stop stays bounded.
    setTimeout(() => {
      logger.warn('Stopped: closing took too long after the grace period; exiting anyway.');
      process.exit(1);
    }, settings.shutdownGraceMs + STOP_BACKSTOP_AFTER_GRACE_MS).unref();
    void relay
      .drain(settings.shutdownGraceMs, {
        onGraceOver: () => void upstream.close({ abortInFlight: true }).catch(() => {}),
      })
      .then(async ({ clean }) => {
        await upstream.close();
        await Promise.all([simulator?.close(), metricsServer?.close()]);
        if (clean) logger.info('Stopped: every request in flight finished.');
        else logger.warn('Stopped: the grace period ran out, so the requests still in flight were cut off.');
        process.exit(clean ? 0 : 1);
      })
      .catch(() => process.exit(1));
  });
}

// Printed only once the signal handlers are in place: whoever waits for these lines may stop us at once. In production
// stdout carries JSON lines only (a log collector parses every line), so the addresses are one JSON line there.
const base = settings.publicOrigin ?? relay.url.replace('127.0.0.1', 'localhost');
if (!settings.development) {
  logger.info(`Relay listening on ${relay.url}`, {
    url: relay.url,
    public_origin: base,
    demo_pages: settings.demoPages,
    ...(metricsServer === null ? {} : { metrics_url: `${metricsServer.url}/metrics` }),
  });
} else
  console.log(
    [
      '',
      `Relay listening on ${relay.url}`,
      simulator === null
        ? `Upstream: ${new URL(upstreamSettings.url).origin}`
        : `Upstream: the built-in simulator at ${simulator.url}`,
      ...(simulator === null
        ? []
        : [`Staff page:             ${simulator.url}/staff (reply as the practice's team member)`]),
      `Live delivery:          ${settings.upstreamEventsSecret === null ? 'streams poll the upstream (no UPSTREAM_EVENTS_SECRET)' : `woken by upstream events at ${base}${UPSTREAM_EVENTS_PATH}`}`,
      ...(settings.demoPages
        ? [`Demo page:              ${base}/demo/`, `Try the widget on:      ${base}/try`]
        : ['Demo pages:             off (DEMO_PAGES)']),
      `Health:                 ${base}/healthz`,
      ...(metricsServer === null ? [] : [`Metrics:                ${metricsServer.url}/metrics`]),
      '',
    ].join('\n'),
  );
