// The Node sink on a real HTTP server, with a raw client socket that reads its answer's first bytes and then nothing:
// a stream that ends with megabytes its client never took has its connection cut soon after, rather than held until
// the client reads or a proxy's timeout.
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeSink, type StreamSink } from '../../../src/relay/live/stream-sink.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serveOneStream(): Promise<{ sink: Promise<StreamSink>; server: Server; client: Socket }> {
  let resolveSink!: (sink: StreamSink) => void;
  const sink = new Promise<StreamSink>((resolve) => (resolveSink = resolve));
  const server = createServer((_request, response) => resolveSink(nodeSink(response, {})));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  const { port } = server.address() as AddressInfo;
  const client = connect(port, '127.0.0.1', () => client.write('GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'));
  client.once('data', () => client.pause());
  cleanups.push(() => client.destroy());
  return { sink, server, client };
}

const connectionsOf = (server: Server) =>
  new Promise<number>((resolve, reject) =>
    server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );

describe('nodeSink', () => {
  it('says when the client has not taken what was written, and how much waits', async () => {
    const { sink: opened } = await serveOneStream();
    const sink = await opened;
    // More than the operating system's buffers take for a client that does not read (a few megabytes).
    let ready = true;
    for (let index = 0; index < 160; index++) ready = sink.write('x'.repeat(64 * 1024));
    expect(ready).toBe(false);
    expect(sink.unsent).toBeGreaterThan(1024 * 1024);
    let drained = false;
    void sink.drained().then(() => (drained = true));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(drained).toBe(false);
    sink.destroy();
    await sink.drained();
  });

  it('cuts an ended stream whose client never takes its last bytes, and reports the connection gone', async () => {
    const { sink: opened, server } = await serveOneStream();
    const sink = await opened;
    let closedAt: number | null = null;
    sink.onClose(() => (closedAt = Date.now()));
    // Far more than the operating system's buffers take for a client that does not read.
    for (let index = 0; index < 160; index++) sink.write('x'.repeat(64 * 1024));
    const endedAt = Date.now();
    sink.end();
    const deadline = endedAt + 5000;
    while (closedAt === null && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closedAt, 'the connection was still open 5 s after the stream ended').not.toBeNull();
    expect(closedAt! - endedAt).toBeLessThanOrEqual(3000);
    expect(await connectionsOf(server)).toBe(0);
  }, 10_000);
});
