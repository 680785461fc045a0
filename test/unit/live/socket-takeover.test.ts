// A stream's connection taken from Node's HTTP server once its head is written (src/relay/live/socket-takeover.ts),
// on a real server with a raw client socket: the request and response Node made for it are left to the garbage
// collector, and the stream still writes, ends after its last bytes, and hears its client leave.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeSink, type StreamSink } from '../../../src/relay/live/stream-sink.ts';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Served {
  sink: StreamSink;
  client: Socket;
  received: () => string;
  request: WeakRef<IncomingMessage>;
  response: WeakRef<ServerResponse>;
}

async function serveOneStream(): Promise<Served> {
  let resolveServed!: (served: Omit<Served, 'client' | 'received'>) => void;
  const served = new Promise<Omit<Served, 'client' | 'received'>>((resolve) => (resolveServed = resolve));
  const server = createServer((request, response) =>
    resolveServed({
      sink: nodeSink(response, {}),
      request: new WeakRef(request),
      response: new WeakRef(response),
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  const { port } = server.address() as AddressInfo;
  let text = '';
  const client = connect(port, '127.0.0.1', () => client.write('GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'));
  client.setEncoding('utf8');
  client.on('data', (chunk: string) => (text += chunk));
  cleanups.push(() => client.destroy());
  return { ...(await served), client, received: () => text };
}

/** Lets sockets and streams make progress: turns of the event loop, not time. */
async function ioTurns(count: number) {
  for (let turn = 0; turn < count; turn++) await new Promise((resolve) => setImmediate(resolve));
}

async function until(condition: () => boolean) {
  while (!condition()) await ioTurns(1);
}

describe("a stream's connection, taken from the HTTP server", () => {
  it('keeps nothing of its request: the request and the response are collected, and the stream still writes', async () => {
    const served = await serveOneStream();
    await ioTurns(5);
    // Not deref() between collections: it keeps its target alive until the end of the current job.
    for (let round = 0; round < 3; round++) {
      collectGarbage();
      await ioTurns(2);
    }
    expect(served.response.deref()).toBeUndefined();
    expect(served.request.deref()).toBeUndefined();
    served.sink.write(': heartbeat\n\n');
    await until(() => served.received().includes(': heartbeat'));
    expect(served.received()).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('ends after its last bytes: the client reads them, then the end of the connection', async () => {
    const served = await serveOneStream();
    await ioTurns(5);
    let clientEnded = false;
    served.client.on('end', () => (clientEnded = true));
    let closed = false;
    served.sink.onClose(() => (closed = true));
    served.sink.write('event: reconnect\ndata: {}\n\n');
    served.sink.end();
    await until(() => clientEnded);
    expect(served.received()).toContain('event: reconnect');
    served.client.end();
    await until(() => closed);
  });

  it('hears its client leave: a client that closes its side ends the stream', async () => {
    const served = await serveOneStream();
    await ioTurns(5);
    let closed = false;
    served.sink.onClose(() => (closed = true));
    served.client.end();
    await until(() => closed);
    expect(served.sink.write('x')).toBe(false);
  });

  it('cuts a client that sends anything after its request (a second request pipelined behind the stream)', async () => {
    const served = await serveOneStream();
    await ioTurns(5);
    let closed = false;
    served.sink.onClose(() => (closed = true));
    served.client.write('GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await until(() => closed);
    expect(served.sink.write('x')).toBe(false);
  });
});
