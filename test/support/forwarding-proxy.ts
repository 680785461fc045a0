// What the tests' proxies share: an HTTP server on 127.0.0.1 that forwards each request, method, path and headers as
// they came, to a target it picks per request, and hands the answer to a policy (pass it on as it streams, or hold it
// whole). A browser that gives up on an answer makes the proxy give up on its request too.
import { createServer, request, type Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ForwardingProxy {
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface ForwardingPolicy {
  /** Where this request goes. */
  target(incoming: IncomingMessage): URL;
  /** How the target's answer reaches the client. */
  answer(answer: IncomingMessage, outgoing: ServerResponse): void;
  agent?: Agent;
}

export async function startForwardingProxy(
  { target, answer, agent }: ForwardingPolicy,
  port = 0,
): Promise<ForwardingProxy> {
  const server = createServer((incoming, outgoing) => {
    const to = target(incoming);
    const forwarded = request(
      {
        host: to.hostname,
        port: to.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
        agent,
      },
      (response) => answer(response, outgoing),
    );
    forwarded.on('error', () => (outgoing.headersSent ? outgoing.destroy() : outgoing.writeHead(502).end()));
    outgoing.on('close', () => outgoing.writableFinished || forwarded.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        agent?.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
