// An HTTP proxy for WebKitGTK, which has no host-resolver flag: every request for a test host name (*.test,
// localhost, 127.0.0.1) goes to the same port on 127.0.0.1, so real-looking practice and relay sites resolve with no
// change to the machine's hosts file. Anything else is refused: tests never reach outside this machine.
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HostProxy {
  /** host:port, as the WebDriver proxy capability takes it. */
  address: string;
  close(): Promise<void>;
}

const LOOPBACK_NAMES = /(^|\.)test$|^localhost$|^127\.0\.0\.1$/i;

export async function startHostProxy(): Promise<HostProxy> {
  const server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    let target: URL;
    try {
      target = new URL(incoming.url ?? '');
    } catch {
      outgoing.writeHead(400).end();
      return;
    }
    if (target.protocol !== 'http:' || !LOOPBACK_NAMES.test(target.hostname)) {
      outgoing.writeHead(403, { 'Content-Type': 'text/plain' }).end('the test proxy reaches only test host names');
      return;
    }
    const upstream = request(
      {
        host: '127.0.0.1',
        port: target.port || 80,
        method: incoming.method,
        path: target.pathname + target.search,
        headers: incoming.headers,
      },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      },
    );
    upstream.on('error', () => (outgoing.headersSent ? outgoing.destroy() : outgoing.writeHead(502).end()));
    outgoing.on('close', () => upstream.destroy());
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
