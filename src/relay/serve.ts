// The relay on a real port, through @hono/node-server, and how it stops.
import { serve } from '@hono/node-server';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRelayApp, type RelayAppOptions } from './app.ts';
import { createLifecycle } from './health/lifecycle.ts';
import { createStores } from './shared-state/stores.ts';

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
   * state connection (Redis), which those requests needed. Calling it again returns the same stop.
   */
  drain(graceMs?: number): Promise<DrainResult>;
}

export function startRelayServer(options: RelayAppOptions): Promise<RunningRelay> {
  const lifecycle = options.lifecycle ?? createLifecycle();
  // Shared state (Redis for REDIS_URL) lives as long as this server; stores passed in belong to the caller.
  const ownStores = options.stores === undefined ? createStores(options.settings, options.logger, options.now) : null;
  const app = createRelayApp({ ...options, lifecycle, stores: options.stores ?? ownStores! });
  const { host, port } = options.settings;
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: host, port }, (info: AddressInfo) => {
      const shownHost = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      let stopping: Promise<DrainResult> | null = null;
      resolve({
        url: `http://${shownHost}:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => void (ownStores === null ? done() : ownStores.close().then(done, done)));
            // Keep-alive connections (a browser's polling) would otherwise hold the close open.
            if ('closeAllConnections' in server) server.closeAllConnections();
          }),
        drain: (graceMs = options.settings.shutdownGraceMs) =>
          (stopping ??= drain(server as Server, lifecycle.startDraining, graceMs).then(async (result) => {
            await ownStores?.close().catch(() => {});
            return result;
          })),
      });
    });
    server.once('error', reject);
  });
}

function drain(server: Server, startDraining: () => void, graceMs: number): Promise<DrainResult> {
  startDraining();
  return new Promise((resolve) => {
    const finish = (result: DrainResult) => {
      clearTimeout(deadline);
      clearInterval(sweep);
      resolve(result);
    };
    // Calls back once the last connection has closed: every request in flight has had its answer.
    server.close(() => finish({ clean: true }));
    server.closeIdleConnections();
    // A connection whose answer began before the drain (so without `Connection: close`) turns idle afterwards and
    // would sit in keep-alive until its timeout: close such connections as they turn idle.
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    const deadline = setTimeout(() => {
      server.closeAllConnections();
      finish({ clean: false });
    }, graceMs);
  });
}
