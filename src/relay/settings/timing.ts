// How long things last and may take: a handle, a cached answer, an upstream call, a browser's wait, a send whose
// outcome is unknown, a client's request, a stop, and the event-loop delay past which /readyz reports the instance busy.
import { group, whole } from './values.ts';

const SECOND_MS = 1000;
const HOUR_MS = 60 * 60 * SECOND_MS;

export const timing = group(
  'Timing',
  {
    handleTtlMs: whole('HANDLE_TTL_HOURS', 12, { min: 1, max: 24 * 30 }, HOUR_MS),
    configCacheSeconds: whole('CONFIG_CACHE_SECONDS', 60, { min: 0, max: 600 }),
    /** How long a conversation's status, once read, serves the polls that bring no newer message (0: every poll). */
    statusRefreshSeconds: whole('STATUS_REFRESH_SECONDS', 10, { min: 0, max: 60 }),
    upstreamTimeoutMs: whole('UPSTREAM_TIMEOUT_MS', 5000, { min: 100, max: 60_000 }),
    requestDeadlineMs: whole('REQUEST_DEADLINE_MS', 8000, { min: 200, max: 120_000 }),
    /**
     * How long after a send began its outcome may still be unknown (the service finishing a request the relay stopped
     * waiting for): no retry sends again before then. Never less than the send window plus the landing allowance.
     */
    sendSettleMs: whole('SEND_SETTLE_MS', 15_000, { min: 0, max: 600_000 }),
    /** A client must have sent its request's headers within this long of connecting (or of its previous request). */
    headersTimeoutMs: whole('HEADERS_TIMEOUT_MS', 10_000, { min: 1000, max: 120_000 }),
    /** A client must have sent its whole request, body included, within this long. */
    requestTimeoutMs: whole('REQUEST_TIMEOUT_MS', 30_000, { min: 1000, max: 600_000 }),
    keepAliveTimeoutMs: whole('KEEP_ALIVE_TIMEOUT_MS', 5000, { min: 1000, max: 600_000 }),
    /** How long a stop (SIGTERM/SIGINT) lets requests in flight finish before it cuts them off. */
    shutdownGraceMs: whole('SHUTDOWN_GRACE_MS', 10_000, { min: 0, max: 600_000 }),
    /** /readyz answers 503 while this instance's event loop has recently run later than this (health/readiness.ts). */
    maxEventLoopDelayMs: whole('MAX_EVENT_LOOP_DELAY_MS', 1000, { min: 10, max: 60_000 }),
  },
  (values, refuse) => {
    // Node refuses a headers timeout longer than the request's: say so by name rather than fail at listen.
    if (values.headersTimeoutMs > values.requestTimeoutMs)
      refuse(
        'HEADERS_TIMEOUT_MS must not be longer than REQUEST_TIMEOUT_MS (the request timeout includes the headers).',
      );
    return values;
  },
);
