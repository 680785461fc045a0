// The upstream service: where it is and how the relay signs in, how long one call and one request may take, and how
// long what it answered is kept (a configuration, a conversation's status).
import { z } from 'zod';
import { flag, integer } from './values.ts';

export const upstreamSchema = z.object({
  UPSTREAM_URL: z.url({ protocol: /^https?$/ }).optional(),
  UPSTREAM_USERNAME: z.string().min(1).optional(),
  UPSTREAM_PASSWORD: z.string().min(1).optional(),
  ALLOW_PLAIN_HTTP_UPSTREAM: flag,
  CONFIG_CACHE_SECONDS: integer(60, 0, 600),
  STATUS_REFRESH_SECONDS: integer(10, 0, 60),
  UPSTREAM_TIMEOUT_MS: integer(5000, 100, 60_000),
  REQUEST_DEADLINE_MS: integer(8000, 200, 120_000),
  SEND_SETTLE_MS: integer(15_000, 0, 600_000),
  SIMULATOR_PORT: integer(8788, 0, 65535),
});

export interface UpstreamSettings {
  url: string;
  username: string;
  password: string;
}

export interface UpstreamServiceSettings {
  /** null: no upstream configured, so `npm start` embeds the simulator. */
  upstream: UpstreamSettings | null;
  configCacheSeconds: number;
  /** How long a conversation's status, once read, serves the polls that bring no newer message (0: every poll reads it). */
  statusRefreshSeconds: number;
  upstreamTimeoutMs: number;
  requestDeadlineMs: number;
  /**
   * How long after a send began its outcome may still be unknown (the service finishing a request the relay stopped
   * waiting for): no retry sends again before then. Never less than the send window plus the landing allowance.
   */
  sendSettleMs: number;
  /** Where `npm start` runs the built-in simulator when no upstream is configured. */
  simulatorPort: number;
}
