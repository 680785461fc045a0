// The metrics listener: its own port (METRICS_PORT), never the public one, so scrapes stay on the operator's network
// and a visitor can never read them. GET /metrics only.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

export function startMetricsServer({
  registry,
  host,
  port,
}: {
  registry: Registry;
  host: string;
  port: number;
}): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found.');
      return;
    }
    registry.metrics().then(
      (text) =>
        response.writeHead(200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' }).end(text),
      () =>
        response.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Metrics could not be collected.'),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const { address, family, port: actualPort } = server.address() as AddressInfo;
      resolve({
        url: `http://${family === 'IPv6' ? `[${address}]` : address}:${actualPort}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
