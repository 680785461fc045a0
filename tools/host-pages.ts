// Host pages served for real on 127.0.0.1 (Chromium blocks loopback requests from pages faked with page.route()), for
// the browser tests and the benches alike.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HostPageServer {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Serves host pages (path → HTML) on 127.0.0.1; any unknown path is a 404. */
export async function serveHostPages(
  pages: Record<string, string | ((request: IncomingMessage) => { body: string; headers?: Record<string, string> })>,
): Promise<HostPageServer> {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://host').pathname;
    const entry = pages[path];
    if (entry === undefined) {
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    const { body, headers } = typeof entry === 'string' ? { body: entry, headers: {} } : entry(request);
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', ...headers }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
