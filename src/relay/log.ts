// Structured logs: one JSON line per event. Callers pass only named, known-safe fields; there is deliberately no way
// to log a request body, a header, a URL with its query, a handle or a message.

export interface RequestLogLine {
  request_id: string;
  method: string;
  /** The route pattern (`/v1/conversation/messages`), never the path with its query. Handles travel in a header the
   * relay never logs, and the pattern keeps anything a caller puts in a path out of the log all the same. */
  route: string;
  client_id: string | null;
  status: number;
  latency_ms: number;
  /** The error code when the answer was an error. */
  code?: string;
  /** What caused an error (`http_500`, `timeout`, `connection_refused`, `token_rejected`, `deadline`, …). */
  cause?: string;
}

/** Fixed facts a note may carry beside its sentence (an address the relay listens on, a count): never request data. */
export type LogFields = Readonly<Record<string, string | number | boolean>>;

export interface Logger {
  request(line: RequestLogLine): void;
  /** Start-up and operational notes: fixed sentences, never request data. */
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  /** Something the operator must fix (the service refused the relay's credentials). */
  error(message: string, fields?: LogFields): void;
}

export function createJsonLogger(write: (line: string) => void, now: () => Date = () => new Date()): Logger {
  const emit = (level: string, message: string, fields: LogFields | undefined) =>
    write(JSON.stringify({ time: now().toISOString(), level, message, ...fields }));
  return {
    request: (line) => write(requestLine(now(), line)),
    info: (message, fields) => emit('info', message, fields),
    warn: (message, fields) => emit('warn', message, fields),
    error: (message, fields) => emit('error', message, fields),
  };
}

/** Dependency failures: the relay did its part, the service or Redis (or the way to them) did not. */
const UPSTREAM_CODES = new Set(['upstream_unavailable', 'upstream_timeout', 'storage_unavailable']);

/**
 * A request line's level: `error` for a 5xx the relay itself caused (a bug: `internal`), `warn` for a 5xx the
 * upstream caused, `info` for everything else (4xx answers are the visitor's or a quota's business).
 */
export function requestLevel(status: number, code: string | undefined): 'info' | 'warn' | 'error' {
  if (status < 500) return 'info';
  return code !== undefined && UPSTREAM_CODES.has(code) ? 'warn' : 'error';
}

/**
 * The request line as `emit` would write it (same fields, same order), put together by hand: it is written for every
 * request, and stringifying an object spread from two others was the largest item of the relay's request log in its
 * CPU profile. Every string goes through JSON.stringify, so escaping is JSON's own.
 */
export function requestLine(time: Date, line: RequestLogLine): string {
  const code = line.code === undefined ? '' : `,"code":${JSON.stringify(line.code)}`;
  const cause = line.cause === undefined ? '' : `,"cause":${JSON.stringify(line.cause)}`;
  return (
    `{"time":"${time.toISOString()}","level":"${requestLevel(line.status, line.code)}","event":"request","request_id":${JSON.stringify(line.request_id)}` +
    `,"method":${JSON.stringify(line.method)},"route":${JSON.stringify(line.route)},"client_id":${JSON.stringify(line.client_id)}` +
    `,"status":${JSON.stringify(line.status)},"latency_ms":${JSON.stringify(line.latency_ms)}${code}${cause}}`
  );
}

export interface BatchedWriter {
  /** Queues one line; it is written with the others queued within a few milliseconds. */
  write(line: string): void;
  /** Writes what is queued now (at exit). */
  flush(): void;
}

/**
 * Log lines gathered and written together, when `flushBytes` are queued or `flushAfterMs` after the first one, whichever
 * comes first. Node writes stdout synchronously when it is a file or a terminal, so one write per request cost the relay
 * a system call per request (the largest item in its CPU profile under load), and one per event-loop turn still one
 * every few requests. When the destination cannot keep up (a pipe whose reader is slow) the relay drops lines beyond
 * `maxPendingBytes` and says how many, rather than blocking or growing without bound. `flush()` writes what is queued
 * (the relay calls it as it exits).
 *
 * @example
 * const out = createBatchedWriter((chunk) => process.stdout.write(chunk), () => process.stdout.writableLength);
 * const logger = createJsonLogger(out.write);
 */
export function createBatchedWriter(
  writeChunk: (chunk: string) => void,
  pendingBytes: () => number = () => 0,
  { maxPendingBytes = 8 * 1024 * 1024, flushBytes = 32 * 1024, flushAfterMs = 50 } = {},
): BatchedWriter {
  let queued: string[] = [];
  let queuedLength = 0;
  let dropped = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;

  function flush(): void {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    if (queued.length === 0 && dropped === 0) return;
    const lines = queued;
    queued = [];
    queuedLength = 0;
    if (dropped > 0) {
      lines.push(
        JSON.stringify({
          time: new Date().toISOString(),
          level: 'warn',
          message: `dropped ${dropped} log lines: the log destination is not keeping up`,
        }),
      );
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
        queuedLength += line.length + 1;
        if (queuedLength >= flushBytes) return flush();
      }
      // Unref'd: a quiet relay may exit before it fires; the exit handler flushes then.
      if (timer === null) timer = setTimeout(flush, flushAfterMs).unref();
    },
    flush,
  };
}
