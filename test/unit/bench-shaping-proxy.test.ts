// bench:first-open's shaped link must deliver every byte, in order, both ways, whether shaped or not, and pass a
// closing side on: a proxy that reordered or dropped bytes under its timers would make the bench time a broken page.
import { createServer, connect, type AddressInfo, type Server } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { startShapingProxy, UNSHAPED } from '../../bench/page/shaping-proxy.ts';

let echo: Server | undefined;
let proxy: Awaited<ReturnType<typeof startShapingProxy>> | undefined;
afterEach(() => {
  proxy?.close();
  echo?.close();
});

/** Sends `chunks` one by one through the proxy to an echo server, then ends; resolves with all that came back. */
async function roundTrip(shape: Parameters<NonNullable<typeof proxy>['shape']>[0], chunks: Buffer[]): Promise<Buffer> {
  echo = createServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => echo!.listen(0, '127.0.0.1', resolve));
  proxy = await startShapingProxy((echo.address() as AddressInfo).port);
  proxy.shape(shape);
  const client = connect(proxy.port, '127.0.0.1');
  const received: Buffer[] = [];
  client.on('data', (chunk: Buffer) => received.push(chunk));
  const ended = new Promise((resolve) => client.on('end', resolve));
  for (const chunk of chunks) {
    client.write(chunk);
    // Chunks of different sizes a moment apart, so later small ones could overtake earlier large ones.
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  client.end();
  await ended;
  client.destroy();
  return Buffer.concat(received);
}

const chunks = Array.from({ length: 40 }, (_, i) => Buffer.alloc(i % 3 ? 7 : 20_000, i));

it.each([
  ['shaped', { oneWayMs: 5, bitsPerSecond: 50e6 }],
  ['unshaped', UNSHAPED],
])('%s: every byte comes back, in order, and the end is passed on', async (_name, shape) => {
  expect((await roundTrip(shape, chunks)).equals(Buffer.concat(chunks))).toBe(true);
});

it('a change of shape while bytes are queued keeps their order', async () => {
  echo = createServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => echo!.listen(0, '127.0.0.1', resolve));
  proxy = await startShapingProxy((echo.address() as AddressInfo).port);
  proxy.shape({ oneWayMs: 30, bitsPerSecond: 10e6 });
  const client = connect(proxy.port, '127.0.0.1');
  const received: Buffer[] = [];
  client.on('data', (chunk: Buffer) => received.push(chunk));
  const ended = new Promise((resolve) => client.on('end', resolve));
  client.write(chunks[0]!);
  await new Promise((resolve) => setTimeout(resolve, 5));
  // Now unshaped: what follows must still wait for what is queued before it.
  proxy.shape(UNSHAPED);
  for (const chunk of chunks.slice(1)) client.write(chunk);
  client.end();
  await ended;
  client.destroy();
  expect(Buffer.concat(received).equals(Buffer.concat(chunks))).toBe(true);
});
