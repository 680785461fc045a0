// Where a stream's bytes go. On @hono/node-server, straight onto the connection of Node's ServerResponse, which the
// sink then takes from Node's HTTP server (socket-takeover.ts): a Web ReadableStream per idle connection costs several
// times the resident memory of the bare response, and the response and its request several times the bare socket
// (bench/results.md, live delivery), and the relay holds tens of thousands.
// Under app.request() (tests, in-process use) there is no ServerResponse, so a ReadableStream stands in.
//
// Either way the sink tells its writer when the client has not taken what was written (write() returns false, and
// `unsent` says how much waits), so that nothing is written faster than the client reads, and a connection whose
// stream has ended is cut if the client has not taken its last bytes soon: a client that never reads must not hold
// the relay's memory, or its place among the streams, for as long as it likes.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { takeSocket } from './socket-takeover.ts';

export interface StreamSink {
  /** A frame as text, or already encoded (the heartbeat, the same bytes for every stream). False: wait for drained(). */
  write(text: string | Uint8Array): boolean;
  /** Bytes written that the client has not taken yet (held by the relay, not yet by the operating system). */
  readonly unsent: number;
  /** Resolves once nothing waits unsent, or the connection is gone. */
  drained(): Promise<void>;
  /** Ends the stream after what was written; a client that has not taken it within END_GRACE_MS is cut off. */
  end(): void;
  /** Cuts the connection now, whatever waits unsent. */
  destroy(): void;
  /** Called once when the connection is gone (after end() or destroy(), or when the client went away). */
  onClose(listener: () => void): void;
}

/** How long an ended stream's client has to take its last bytes (a reconnect hint, an error) before it is cut off. */
export const END_GRACE_MS = 2000;

export const STREAM_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  // nginx: do not buffer this answer (a buffered stream delivers nothing until it ends).
  'X-Accel-Buffering': 'no',
  'X-Content-Type-Options': 'nosniff',
};

export function nodeSink(response: ServerResponse, headers: Record<string, string>): StreamSink {
  // No chunked framing: the stream's body ends when its connection closes, so each write is one buffer on the socket
  // rather than three (size, data, CRLF). Ten thousand idle streams write 667 heartbeats a second between them.
  response.useChunkedEncodingByDefault = false;
  response.writeHead(200, { ...STREAM_HEADERS, ...headers });
  // The head goes out now, ahead of every frame, which the sink then writes straight onto the connection: the body
  // of an answer without chunked framing is the connection's bytes as they are, and a write through the response
  // would cork the socket and schedule its uncorking, for every heartbeat of every stream.
  response.flushHeaders();
  // Node keeps the head it wrote for the response's life, as a string built piece by piece (a node of V8's per piece,
  // about a kilobyte a stream); read once, V8 makes it one flat string of a few hundred bytes in place.
  const head: unknown = (response as { _header?: unknown })._header;
  if (typeof head === 'string') head.charCodeAt(0);
  dropHeaderStore(response);
  return new NodeSink(response);
}

/**
 * Node keeps the headers set before the head (preset-header.ts sets them on every answer) in a store of its own, a
 * dictionary and a name-and-value pair per header, for as long as the response lives. A stream's head is written by
 * now and nothing reads the store again, so it is dropped: empty is the store's state before any header was set, and
 * Node's getters read it as "no headers". The store has no public name; when a Node version renames it, nothing is
 * dropped and the stream works as before (bench:live's memory per stream would show it).
 */
function dropHeaderStore(response: ServerResponse): void {
  const store = Object.getOwnPropertySymbols(response).find((symbol) => symbol.description === 'kOutHeaders');
  if (store !== undefined) (response as unknown as Record<symbol, unknown>)[store] = null;
}

/**
 * A class rather than an object of closures: an instance holds its few fields and shares its methods, and an instance
 * has tens of thousands of idle streams (bench/results.md, live delivery).
 */
class NodeSink implements StreamSink {
  /** Until the connection is taken from Node's server (socket-takeover.ts); then the socket is all there is. */
  #response: ServerResponse | null;
  // The connection, not the response: the stream counts until its socket is gone.
  readonly #connection: Socket | null;
  #closed: boolean;
  #ending = false;
  #cutOff: NodeJS.Timeout | null = null;
  #onClose: (() => void) | null = null;
  readonly #close = () => {
    this.#closed = true;
    if (this.#cutOff !== null) clearTimeout(this.#cutOff);
    const listener = this.#onClose;
    this.#onClose = null;
    listener?.();
  };

  constructor(response: ServerResponse) {
    this.#response = response;
    this.#connection = response.socket;
    this.#closed = this.#connection === null || this.#connection.destroyed;
    // `on`, not `once`: the socket closes once, and `once` would add a wrapper and its state to every stream.
    this.#connection?.on('close', this.#close);
    // On a later turn: the sink may be made inside the server's parser callbacks, which must not free their parser.
    if (!this.#closed) setImmediate(takeConnection, this);
  }

  /** Takes the connection from Node's server, unless the stream is already ending (through the response, then). */
  take(): void {
    if (this.#closed || this.#ending || this.#response === null) return;
    if (takeSocket(this.#response) !== null) this.#response = null;
  }

  write(text: string | Uint8Array): boolean {
    return this.#closed || this.#connection === null ? false : this.#connection.write(text);
  }

  get unsent(): number {
    return this.#closed || this.#connection === null ? 0 : this.#connection.writableLength;
  }

  drained(): Promise<void> {
    const connection = this.#connection;
    if (this.#closed || connection === null || !connection.writableNeedDrain) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        connection.off('drain', done);
        connection.off('close', done);
        resolve();
      };
      connection.once('drain', done);
      connection.once('close', done);
    });
  }

  end(): void {
    if (this.#closed || this.#ending) return;
    this.#ending = true;
    const connection = this.#connection!;
    const response = this.#response;
    // Queued behind the frames on the connection, which closes once they are sent: through the response while the
    // server still has the connection (Node then closes it), on the socket itself once it is taken.
    if (response !== null) response.end();
    else connection.end(() => connection.destroy());
    this.#cutOff = setTimeout(() => (response ?? connection).destroy(), END_GRACE_MS);
    this.#cutOff.unref();
  }

  destroy(): void {
    (this.#response ?? this.#connection)?.destroy();
  }

  onClose(listener: () => void): void {
    if (this.#closed) {
      listener();
      return;
    }
    const before = this.#onClose;
    this.#onClose =
      before === null
        ? listener
        : () => {
            before();
            listener();
          };
  }
}

function takeConnection(sink: NodeSink) {
  sink.take();
}

/** The same over a Web ReadableStream, whose queue counts bytes: `unsent` is what the reader has not pulled. */
export function webSink(highWaterMark = 16 * 1024): { sink: StreamSink; body: ReadableStream<Uint8Array> } {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;
  const listeners: (() => void)[] = [];
  let waiters: (() => void)[] = [];
  const wakeWaiters = () =>
    waiters.splice(0).forEach((wake) => {
      wake();
    });
  const close = () => {
    if (closed) return;
    closed = true;
    wakeWaiters();
    listeners.splice(0).forEach((listener) => {
      listener();
    });
  };
  const unsent = () => (closed ? 0 : Math.max(0, highWaterMark - (controller.desiredSize ?? highWaterMark)));
  const body = new ReadableStream<Uint8Array>(
    {
      start: (c) => {
        controller = c;
      },
      // Called whenever the queue is below its high-water mark again: the reader has taken enough.
      pull: wakeWaiters,
      cancel: close,
    },
    new ByteLengthQueuingStrategy({ highWaterMark }),
  );
  return {
    body,
    sink: {
      write: (text) => {
        if (closed) return false;
        controller.enqueue(typeof text === 'string' ? encoder.encode(text) : text);
        return (controller.desiredSize ?? 0) > 0;
      },
      get unsent() {
        return unsent();
      },
      drained: () =>
        closed || (controller.desiredSize ?? 0) > 0
          ? Promise.resolve()
          : new Promise<void>((resolve) => void waiters.push(resolve)),
      end: () => {
        if (!closed) controller.close();
        close();
      },
      destroy: () => {
        if (!closed) controller.error(new Error('stream cut off'));
        close();
      },
      onClose: (listener) => void (closed ? listener() : listeners.push(listener)),
    },
  };
}
