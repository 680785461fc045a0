// Where a stream's bytes go. On @hono/node-server, straight onto Node's ServerResponse: a Web ReadableStream per idle
// connection costs about 2.5 times the resident memory (about 31 KB against 12 KB), and the relay holds thousands.
// Under app.request() (tests, in-process use) there is no ServerResponse, so a ReadableStream stands in.
import type { ServerResponse } from 'node:http';

export interface StreamSink {
  /** A frame as text, or already encoded (the heartbeat, the same bytes for every stream). */
  write(text: string | Uint8Array): void;
  end(): void;
  /** Called once when the client goes away (or end() was called). */
  onClose(listener: () => void): void;
}

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
  return {
    write: (text) => void response.write(text),
    end: () => response.end(),
    onClose: (listener) => void response.once('close', listener),
  };
}

export function webSink(): { sink: StreamSink; body: ReadableStream<Uint8Array> } {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;
  const listeners: (() => void)[] = [];
  const close = () => {
    if (closed) return;
    closed = true;
    listeners.splice(0).forEach((listener) => listener());
  };
  const body = new ReadableStream<Uint8Array>({
    start: (c) => void (controller = c),
    cancel: close,
  });
  return {
    body,
    sink: {
      write: (text) => void (closed || controller.enqueue(typeof text === 'string' ? encoder.encode(text) : text)),
      end: () => {
        if (!closed) controller.close();
        close();
      },
      onClose: (listener) => void (closed ? listener() : listeners.push(listener)),
    },
  };
}
