// A stand-in for the relay's upstream-events endpoint: a real HTTP server on 127.0.0.1 that records each request as
// it arrived (raw body, headers) and answers as the test says, or not at all.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedEvent {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  /** What the test's `observe` saw when the request arrived (e.g. the simulator's store at that moment). */
  observed: unknown;
}

export type Answer = number | 'hang';

export async function startEventListener(
  options: { answer?: (attempt: number) => Answer; observe?: () => unknown } = {},
) {
  const received: ReceivedEvent[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        raw: Buffer.concat(chunks).toString('utf8'),
        observed: options.observe?.(),
      });
      const answer = options.answer?.(received.length) ?? 204;
      if (answer === 'hang') hanging.push(response);
      else response.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of hanging) response.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
