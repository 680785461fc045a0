// The relay on a real port, through @hono/node-server.
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { createRelayApp, type RelayAppOptions } from './app.ts';

export interface RunningRelay {
  /** e.g. http://127.0.0.1:8787 */
  url: string;
  close(): Promise<void>;
}

export function startRelayServer(options: RelayAppOptions): Promise<RunningRelay> {
  const app = createRelayApp(options);
  const { host, port } = options.settings;
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: host, port }, (info: AddressInfo) => {
      const shownHost = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${shownHost}:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            // Keep-alive connections (a browser's polling) would otherwise hold the close open.
            if ('closeAllConnections' in server) server.closeAllConnections();
          }),
      });
    });
    server.once('error', reject);
  });
}
