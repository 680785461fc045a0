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
  close(): void;
}> {
  let shape = UNSHAPED;
  const up: Direction = { freeAt: 0 };
  const down: Direction = { freeAt: 0 };
  const sockets = new Set<Socket>();

  /** Forwards `from`'s bytes to `to` through one direction of the link, in order. */
  function pipeShaped(from: Socket, to: Socket, direction: Direction, notBefore = 0) {
    let deliveredAt = notBefore;
    from.on('data', (chunk: Buffer) => {
      if (shape.oneWayMs === 0 && shape.bitsPerSecond === Infinity) {
        // Unshaped: still after anything queued before, so bytes never overtake each other.
        if (deliveredAt <= performance.now()) return void to.write(chunk);
      }
      const now = performance.now();
      const sendStart = Math.max(now, direction.freeAt);
      direction.freeAt = sendStart + (chunk.length * 8 * 1000) / shape.bitsPerSecond;
      // Never before an earlier chunk of this connection (a timer's lateness must not reorder the stream).
      deliveredAt = Math.max(deliveredAt, direction.freeAt + shape.oneWayMs);
      setTimeout(() => to.writable && to.write(chunk), deliveredAt - now);
    });
    from.on('end', () => setTimeout(() => to.end(), Math.max(0, deliveredAt - performance.now())));
  }

  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    sockets.add(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
    };
    client.on('error', end);
    upstream.on('error', end);
    client.on('close', end);
    upstream.on('close', end);
    // The connection's own set-up crosses the link too. The kernel answers a loopback SYN at once, so the client's
    // first bytes are held for the round trip a TCP handshake takes (its SYN and SYN-ACK), on top of their own way.
    pipeShaped(client, upstream, up, performance.now() + 2 * shape.oneWayMs);
    pipeShaped(upstream, client, down);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    shape: (next) => (shape = next),
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}
