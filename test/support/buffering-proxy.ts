// A proxy that buffers whole answers, as a misconfigured one in front of the relay does (nginx with proxy_buffering
// on and no X-Accel-Buffering honoured, some corporate proxies): nothing of an answer, headers included, reaches the
// browser until the relay has finished it. A live stream through it delivers nothing at all. Counts what it forwards.
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BufferingProxy {
  url: string;
  port: number;
  /** `METHOD /path` of each request forwarded (no query string). */
  requests: string[];
  close(): Promise<void>;
}

export async function startBufferingProxy(target: string, port = 0): Promise<BufferingProxy> {
  const to = new URL(target);
  const requests: string[] = [];
  const server = createServer((incoming, outgoing) => {
    requests.push(`${incoming.method} ${new URL(incoming.url ?? '/', 'http://proxy').pathname}`);
    const forwarded = request({ host: to.hostname, port: to.port, method: incoming.method, path: incoming.url, headers: incoming.headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        const body = Buffer.concat(chunks);
        const headers = { ...answer.headers, 'content-length': String(body.length) };
        delete headers['transfer-encoding'];
        if (!outgoing.destroyed) outgoing.writeHead(answer.statusCode ?? 502, headers).end(body);
      });
    });
    forwarded.on('error', () => (outgoing.headersSent ? outgoing.destroy() : outgoing.writeHead(502).end()));
    // The browser gave up on the answer (the panel stops a silent stream): so does the request to the relay.
    outgoing.on('close', () => forwarded.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
