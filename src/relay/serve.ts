// The relay on a real port, through @hono/node-server.
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { createRelayApp, type RelayAppOptions } from './app.ts';
import { createStores } from './shared-state/stores.ts';

export interface RunningRelay {
  /** e.g. http://127.0.0.1:8787 */
  url: string;
  close(): Promise<void>;
}

export function startRelayServer(options: RelayAppOptions): Promise<RunningRelay> {
  // Shared state (Redis for REDIS_URL) lives as long as this server; stores passed in belong to the caller.
  const ownStores = options.stores === undefined ? createStores(options.settings.redisUrl, options.logger, options.now) : null;
  const app = createRelayApp({ ...options, stores: options.stores ?? ownStores! });
  const { host, port } = options.settings;
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: host, port }, (info: AddressInfo) => {
      const shownHost = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${shownHost}:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => void (ownStores === null ? done() : ownStores.close().then(done, done)));
            // Keep-alive connections (a browser's polling) would otherwise hold the close open.
            if ('closeAllConnections' in server) server.closeAllConnections();
          }),
      });
    });
    server.once('error', reject);
  });
}
