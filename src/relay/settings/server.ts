// The listener and the process: where the relay listens, how long a client may take, how a stop drains, when /readyz
// reports the instance busy, and where its metrics are served.
import { z } from 'zod';
import { integer } from './values.ts';

export const serverSchema = z.object({
  PORT: integer(8787, 0, 65535),
  HOST: z.string().trim().min(1).default('127.0.0.1'),
  SHUTDOWN_GRACE_MS: integer(10_000, 0, 600_000),
  HEADERS_TIMEOUT_MS: integer(10_000, 1000, 120_000),
  REQUEST_TIMEOUT_MS: integer(30_000, 1000, 600_000),
  KEEP_ALIVE_TIMEOUT_MS: integer(5000, 1000, 600_000),
  MAX_EVENT_LOOP_DELAY_MS: integer(1000, 10, 60_000),
  METRICS_PORT: integer(0, 1, 65535).transform((port) => (port === 0 ? null : port)),
  METRICS_HOST: z.string().trim().min(1).default('127.0.0.1'),
});

export interface ServerSettings {
  port: number;
  host: string;
  /** How long a stop (SIGTERM/SIGINT) lets requests in flight finish before it cuts them off. */
  shutdownGraceMs: number;
  /** A client must have sent its request's headers within this long of connecting (or of its previous request). */
  headersTimeoutMs: number;
  /** A client must have sent its whole request, body included, within this long. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this long. */
  keepAliveTimeoutMs: number;
  /** /readyz answers 503 while this instance's event loop has recently run later than this (health/readiness.ts). */
  maxEventLoopDelayMs: number;
  /** Where the Prometheus metrics listener runs; null: no metrics at all. Never the public port. */
  metrics: { host: string; port: number } | null;
}
