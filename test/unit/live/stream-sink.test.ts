// The Node sink on a real HTTP server, with a raw client socket that reads its answer's first bytes and then nothing:
// a stream that ends with megabytes its client never took has its connection cut soon after, rather than held until
// the client reads or a proxy's timeout.
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { END_GRACE_MS, nodeSink, type StreamSink } from '../../../src/relay/live/stream-sink.ts';

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

/** Lets sockets and streams make progress: turns of the event loop, not time. */
async function ioTurns(count: number) {
  for (let turn = 0; turn < count; turn++) await new Promise((resolve) => setImmediate(resolve));
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

  it('cuts an ended stream whose client never takes its last bytes, once its grace is over', async () => {
    // Only the sink's own timers are faked (Node's sockets keep their internal ones): the grace is counted on this
    // clock, so the test asserts when the cut happens in grace time, whatever the machine's load.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    cleanups.push(() => vi.useRealTimers());
    const { sink: opened, server } = await serveOneStream();
    const sink = await opened;
    let closed = false;
    const gone = new Promise<void>((resolve) => sink.onClose(resolve)).then(() => (closed = true));
    // Far more than the operating system's buffers take for a client that does not read.
    for (let index = 0; index < 160; index++) sink.write('x'.repeat(64 * 1024));
    sink.end();
    await ioTurns(20);
    vi.advanceTimersByTime(END_GRACE_MS - 1);
    await ioTurns(20);
    expect(closed, 'the connection was cut before its grace was over').toBe(false);
    expect(await connectionsOf(server)).toBe(1);
    vi.advanceTimersByTime(1);
    // Without the cut, this never resolves and the test times out: the client never reads.
    await gone;
    expect(await connectionsOf(server)).toBe(0);
  });
});
