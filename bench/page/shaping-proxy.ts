// A shaped link on loopback for bench:first-open: a TCP proxy in front of the relay's TLS front that delays every
// byte by half a round trip in each direction and lets through no more than a link's rate, shared by all the
// connections in that direction (as one phone's radio link is). DevTools' network throttling does not reach a
// cross-site frame (its own renderer process, its own requests), and the frame is what this bench times; a proxy
// shapes everything that goes to the relay, the page's requests and the frame's alike.
import { createServer, connect, type Socket } from 'node:net';

export interface LinkShape {
  /** Added to each direction: half the round trip. */
  oneWayMs: number;
  /** Bits per second in each direction; Infinity for none. */
  bitsPerSecond: number;
}

export const UNSHAPED: LinkShape = { oneWayMs: 0, bitsPerSecond: Infinity };

/** One direction of the link: when its last queued byte has gone out at the link's rate. */
interface Direction {
  freeAt: number;
}

export async function startShapingProxy(targetPort: number): Promise<{
  port: number;
  /** Applies to every byte sent from now on (connections already open included). */
  shape(next: LinkShape): void;
  /** Bytes sent towards the browser so far (TLS records included): what the link carried down. */
  bytesDown(): number;
  close(): void;
}> {
  let shape = UNSHAPED;
  const up: Direction = { freeAt: 0 };
  const down: Direction = { freeAt: 0 };
  const sockets = new Set<Socket>();
  let bytesDown = 0;

  /** Forwards `from`'s bytes to `to` through one direction of the link, in order: one queue and one timer per
   * connection and direction, so no timer's rounding can let a later chunk overtake an earlier one. */
  function pipeShaped(from: Socket, to: Socket, direction: Direction, notBefore = 0) {
    const queue: Array<{ at: number; chunk: Buffer | null }> = [];
    let lastAt = notBefore;
    let timer: NodeJS.Timeout | undefined;
    const drain = () => {
      timer = undefined;
      while (queue.length && queue[0]!.at <= performance.now()) {
        const { chunk } = queue.shift()!;
        // null: the sending side has ended.
        if (chunk) to.writable && to.write(chunk);
        else to.end();
      }
      if (queue.length) timer = setTimeout(drain, queue[0]!.at - performance.now());
    };
    const enqueue = (chunk: Buffer | null) => {
      const now = performance.now();
      const bits = (chunk?.length ?? 0) * 8;
      const sendStart = Math.max(now, direction.freeAt);
      direction.freeAt = sendStart + (bits * 1000) / shape.bitsPerSecond;
      lastAt = Math.max(lastAt, direction.freeAt + shape.oneWayMs);
      queue.push({ at: lastAt, chunk });
      if (!timer) drain();
    };
    from.on('data', (chunk: Buffer) => enqueue(chunk));
    from.on('end', () => enqueue(null));
  }

  // Half-open on both sides: a side that has finished sending still receives what the link holds for it, and its
  // end reaches the other side only after its last bytes, as on a real link.
  const server = createServer({ allowHalfOpen: true }, (client) => {
    const upstream = connect({ port: targetPort, host: '127.0.0.1', allowHalfOpen: true });
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    sockets.add(client);
    const fail = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', fail);
    upstream.on('error', fail);
    client.on('close', () => sockets.delete(client));
    // The connection's own set-up crosses the link too. The kernel answers a loopback SYN at once, so the client's
    // first bytes are held for the round trip a TCP handshake takes (its SYN and SYN-ACK), on top of their own way.
    pipeShaped(client, upstream, up, performance.now() + 2 * shape.oneWayMs);
    pipeShaped(upstream, client, down);
    upstream.on('data', (chunk: Buffer) => (bytesDown += chunk.length));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    shape: (next) => (shape = next),
    bytesDown: () => bytesDown,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}
