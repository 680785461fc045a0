// A child process of the live bench that holds many idle streams on raw sockets: tens of thousands of node:http
// clients would weigh on one process (and its open-files limit) more than the relay being measured. Each socket sends
// the request the panel sends and then only counts what arrives: heartbeats, and the status that ends the catch-up.
// Sockets leave from `localAddress` (127.0.0.x), so that many holders are not short of ephemeral ports on one
// destination. Driven over IPC by idle-streams.ts: `open` → `opened` (or `failed`), `count` → `counted`, `close`.
import { connect, type Socket } from 'node:net';

export interface HolderOpen {
  type: 'open';
  host: string;
  port: number;
  origin: string;
  localAddress: string;
  handles: string[];
  concurrency: number;
}
export type HolderRequest = HolderOpen | { type: 'count' } | { type: 'close' };
export type HolderAnswer =
  | { type: 'opened'; streams: number }
  | { type: 'failed'; error: string }
  | { type: 'counted'; heartbeats: number; open: number };

const HEARTBEAT = ': heartbeat\n\n';

let heartbeats = 0;
let open = 0;
const sockets: Socket[] = [];

/** Resolves once the stream's catch-up has ended (its status frame), rejects if the answer is not a stream. */
function holdStream(request: HolderOpen, handle: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: request.host, port: request.port, localAddress: request.localAddress });
    sockets.push(socket);
    let opened = false;
    let head = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      socket.write(
        `GET /v1/conversation/events?after=0 HTTP/1.1\r\nHost: ${request.host}:${request.port}\r\nOrigin: ${request.origin}\r\n` +
          `X-Practice-Chat: frame\r\nAuthorization: Bearer ${handle}\r\nAccept: text/event-stream\r\n\r\n`,
      );
    });
    socket.on('data', (chunk: string) => {
      if (!opened) {
        head += chunk;
        if (!head.startsWith('HTTP/1.1 200')) {
          if (head.includes('\r\n')) reject(new Error(head.slice(0, head.indexOf('\r\n'))));
          return;
        }
        if (!head.includes('event: status')) return;
        opened = true;
        open += 1;
        head = '';
        resolve();
        return;
      }
      // A heartbeat arrives as a write of its own; counting occurrences also holds if two arrive together.
      for (let at = chunk.indexOf(HEARTBEAT); at !== -1; at = chunk.indexOf(HEARTBEAT, at + HEARTBEAT.length))
        heartbeats += 1;
    });
    socket.on('error', (error) => {
      if (!opened) reject(error);
    });
    socket.on('close', () => {
      if (opened) open -= 1;
    });
  });
}

async function openAll(request: HolderOpen): Promise<number> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(request.concurrency, request.handles.length) }, async () => {
      while (next < request.handles.length) await holdStream(request, request.handles[next++]!);
    }),
  );
  return request.handles.length;
}

const answer = (message: HolderAnswer) => process.send!(message);

process.on('message', (message: HolderRequest) => {
  if (message.type === 'open')
    openAll(message).then(
      (streams) => answer({ type: 'opened', streams }),
      (error: Error) => answer({ type: 'failed', error: error.message }),
    );
  else if (message.type === 'count') answer({ type: 'counted', heartbeats, open });
  else {
    sockets.forEach((socket) => {
      socket.destroy();
    });
    process.exit(0);
  }
});
