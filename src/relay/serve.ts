// The relay on a real port, through @hono/node-server, and how it stops.
import { serve } from '@hono/node-server';
import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createRelayApp, type RelayAppOptions } from './app.ts';
import { createLifecycle } from './health/lifecycle.ts';
import { createSharedState } from './stores.ts';

export interface DrainResult {
  /** true: every request in flight finished within the grace period; false: the rest were cut off at its end. */
  clean: boolean;
}

export interface RunningRelay {
  /** e.g. http://127.0.0.1:8787 */
  url: string;
  /** Stops at once: every connection closes, requests in flight included (what a crash looks like to a browser). */
  close(): Promise<void>;
  /**
   * The graceful stop (SIGTERM): stops accepting connections, answers /readyz 503 "draining", closes idle keep-alive
   * connections and asks busy ones to close after their answer (`Connection: close`), and lets requests in flight
   * finish for up to `graceMs` (default SHUTDOWN_GRACE_MS); then it closes whatever is left, and last its own shared
   * state connection (Redis), which those requests needed. When the grace period runs out, `onGraceOver` aborts what
   * is still in flight, which gets SETTLE_AFTER_GRACE_MS to answer; so the stop ends about that long after the grace
   * period whatever UPSTREAM_TIMEOUT_MS is. Calling it again returns the same stop.
   */
  drain(graceMs?: number, options?: DrainOptions): Promise<DrainResult>;
}

export interface DrainOptions {
  /**
   * Called once when the grace period runs out with requests still in flight: it should abort their upstream calls
   * (the upstream client's `close({ abortInFlight: true })`), so that they answer at once (a 5xx the panel retries)
   * instead of holding the stop for as long as UPSTREAM_TIMEOUT_MS.
   */
  onGraceOver?: () => void;
}

/** After the grace period, how long aborted requests get to write their answers before their connections are cut. */
export const SETTLE_AFTER_GRACE_MS = 500;
/** How long closing the shared state (Redis) may take before its connection is dropped instead. */
const STORES_CLOSE_MS = 500;
/**
 * How often Node checks the headers and request timeouts (its default, 30 s, would let a slow client overstay them by
 * that much).
 */
const TIMEOUT_CHECK_INTERVAL_MS = 1000;

export function startRelayServer(options: RelayAppOptions): Promise<RunningRelay> {
  const lifecycle = options.runtime?.lifecycle ?? createLifecycle();
  // Shared state (Redis for REDIS_URL) lives as long as this server; shared state passed in belongs to the caller.
  const ownState =
    options.shared === undefined
      ? createSharedState(
          options.settings,
          options.observability.logger,
          options.runtime?.now,
          options.observability.metrics,
        )
      : null;
  const app = createRelayApp({
    ...options,
    runtime: { ...options.runtime, lifecycle },
    ...(ownState === null ? {} : { shared: { stores: ownState.stores, events: ownState.events } }),
  });
  const { host, port } = options.settings;
  return new Promise((resolve, reject) => {
    const { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs } = options.settings;
    // Node's defaults hold a client that trickles its headers for a minute and its body for five: a few such clients
    // per instance pin sockets and memory. The settings bound both; keep-alive stays below a load balancer's idle timeout.
    const serverOptions = {
      headersTimeout: headersTimeoutMs,
      requestTimeout: requestTimeoutMs,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    };
    const server = serve({ fetch: app.fetch, hostname: host, port, serverOptions }, (info: AddressInfo) => {
      const destroyAllSockets = trackSockets(server as Server);
      const shownHost = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      let stopping: Promise<DrainResult> | null = null;
      resolve({
        url: `http://${shownHost}:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => void (ownState === null ? done() : ownState.close().then(done, done)));
            // Keep-alive connections (a browser's polling) would otherwise hold the close open.
            if ('closeAllConnections' in server) server.closeAllConnections();
            destroyAllSockets();
          }),
        drain: (graceMs = options.settings.shutdownGraceMs, drainOptions = {}) =>
          (stopping ??= drain(
            server as Server,
            lifecycle.startDraining,
            graceMs,
            drainOptions.onGraceOver,
            destroyAllSockets,
          ).then(async (result) => {
            if (ownState !== null) await closeWithin(ownState.close(), STORES_CLOSE_MS);
            return result;
          })),
      });
    });
    // A server property, not a createServer option, on Node 20.
    (server as Server).keepAliveTimeout = keepAliveTimeoutMs;
    server.once('error', reject);
  });
}

/**
 * Every socket the server accepted, until it closes, and a way to destroy them all. A live stream's connection is
 * taken from Node's HTTP server (live/socket-takeover.ts), so `closeAllConnections()`, which goes through the
 * server's parsers, no longer reaches it: a stop that must close everything closes these too.
 */
function trackSockets(server: Server): () => void {
  const sockets = new Set<Socket>();
  // One function for every socket's listener, not a closure each.
  function forget(this: Socket) {
    sockets.delete(this);
  }
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', forget);
  });
  return () => {
    for (const socket of sockets) socket.destroy();
  };
}

/** Waits for `closing` at most `ms`: a store that cannot say goodbye (Redis gone) must not hold the stop. */
async function closeWithin(closing: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([closing.catch(() => {}), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

function drain(
  server: Server,
  startDraining: () => void,
  graceMs: number,
  onGraceOver: (() => void) | undefined,
  destroyAllSockets: () => void,
): Promise<DrainResult> {
  startDraining();
  return new Promise((resolve) => {
    let graceOver = false;
    let settle: NodeJS.Timeout | undefined;
    const finish = (result: DrainResult) => {
      clearTimeout(deadline);
      clearTimeout(settle);
      clearInterval(sweep);
      resolve(result);
    };
    // Calls back once the last connection has closed: every request in flight has had its answer (after the grace
    // period, an answer to an aborted call: not clean).
    server.close(() => finish({ clean: !graceOver }));
    server.closeIdleConnections();
    // A connection whose answer began before the drain (so without `Connection: close`) turns idle afterwards and
    // would sit in keep-alive until its timeout: close such connections as they turn idle.
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    const deadline = setTimeout(() => {
      graceOver = true;
      if (onGraceOver === undefined) {
        server.closeAllConnections();
        destroyAllSockets();
        finish({ clean: false });
        return;
      }
      // Abort the upstream calls still running: their requests answer at once (503, which the panel retries; a send
      // so cut is an unknown outcome on record, which the retry reads back), then whatever is left is cut.
      onGraceOver();
      settle = setTimeout(() => {
        server.closeAllConnections();
        destroyAllSockets();
        finish({ clean: false });
      }, SETTLE_AFTER_GRACE_MS);
    }, graceMs);
  });
}
