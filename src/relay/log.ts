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
