// Structured logs: one JSON line per event. Callers pass only named, known-safe fields; there is deliberately no way
// to log a request body, a header, a URL with its query, a handle or a message.

export interface RequestLogLine {
  request_id: string;
  method: string;
  /** The route pattern (`/v1/conversations/:handle/messages`), never the path, so handles stay out of logs. */
  route: string;
  client_id: string | null;
  status: number;
  latency_ms: number;
  /** The error code when the answer was an error. */
  code?: string;
}

export interface Logger {
  request(line: RequestLogLine): void;
  /** Start-up and operational notes: fixed sentences, never request data. */
  info(message: string): void;
  warn(message: string): void;
}

export function createJsonLogger(write: (line: string) => void, now: () => Date = () => new Date()): Logger {
  const emit = (fields: object) => write(JSON.stringify({ time: now().toISOString(), ...fields }));
  return {
    request: (line) => emit({ level: 'info', event: 'request', ...line }),
    info: (message) => emit({ level: 'info', message }),
    warn: (message) => emit({ level: 'warn', message }),
  };
}

export interface BatchedWriter {
  /** Queues one line; it is written with the others queued in the same turn of the event loop. */
  write(line: string): void;
  /** Writes what is queued now (at exit). */
  flush(): void;
}

/**
 * Log lines gathered per turn of the event loop and written in one call. Node writes stdout synchronously when it is
 * a file or a terminal, so one write per request cost the relay a system call per request (the largest item in its
 * CPU profile under load); one write per turn costs one per burst. When the destination cannot keep up (a pipe whose
 * reader is slow) the relay drops lines beyond `maxPendingBytes` and says how many, rather than blocking or growing
 * without bound.
 *
 * @example
 * const out = createBatchedWriter((chunk) => process.stdout.write(chunk), () => process.stdout.writableLength);
 * const logger = createJsonLogger(out.write);
 */
export function createBatchedWriter(
  writeChunk: (chunk: string) => void,
  pendingBytes: () => number = () => 0,
  maxPendingBytes = 8 * 1024 * 1024,
): BatchedWriter {
  let queued: string[] = [];
  let dropped = 0;
  let scheduled = false;

  function flush(): void {
    scheduled = false;
    if (queued.length === 0 && dropped === 0) return;
    const lines = queued;
    queued = [];
    if (dropped > 0) {
      lines.push(JSON.stringify({ time: new Date().toISOString(), level: 'warn', message: `dropped ${dropped} log lines: the log destination is not keeping up` }));
      dropped = 0;
    }
    writeChunk(lines.join('\n') + '\n');
  }

  return {
    write(line) {
      if (pendingBytes() > maxPendingBytes) {
        dropped += 1;
      } else {
        queued.push(line);
      }
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}
