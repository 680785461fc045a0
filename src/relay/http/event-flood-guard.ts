// The service's events path (POST /v1/upstream-events) is open to the internet and authenticated only by each
// event's signature, so a flood of unsigned or replayed calls would cost an HMAC and a log line each. This guard gives
// the path quotas of its own per source address: a generous one for every call (the service sends as many events as
// conversations change) and a small one for refused calls, past which that address is refused before any work until
// its window ends. Refused calls write no request line; a streak of them is one warning line.
import type { MiddlewareHandler } from 'hono';
import type { Context } from 'hono';
import type { Logger } from '../log.ts';
import type { RateLimiter } from '../protection/rate-limiter.ts';
import { ApiError } from './api-error.ts';
import type { RelayEnv } from './env.ts';

/** Refused calls one source address may make per minute before it is cut off: the service's own are rare. */
export const REFUSED_EVENTS_PER_MINUTE = 30;
/** A streak of refusals ends when an event is accepted, or after this long without a refusal. */
export const STREAK_QUIET_MS = 60_000;
/** Addresses cut off at once, at most; the oldest go first. Bounds memory when a flood rotates addresses. */
const MAX_CUT_OFF = 10_000;

export interface EventFloodGuardOptions {
  /** Every call, per source address. */
  calls: RateLimiter;
  /** Refused calls (bad signature, bad body, too large, over a quota), per source address. */
  refusals: RateLimiter;
  keyOf: (c: Context<RelayEnv>) => string;
  logger: Logger;
  now?: () => number;
}

/**
 * @example
 * app.use(UPSTREAM_EVENTS_PATH, eventFloodGuard({ calls, refusals, keyOf: addressOf, logger }))
 */
export function eventFloodGuard({
  calls,
  refusals,
  keyOf,
  logger,
  now = Date.now,
}: EventFloodGuardOptions): MiddlewareHandler<RelayEnv> {
  const cutOffUntil = new Map<string, number>();
  const streak = refusalStreak(logger, now);

  const refused = async (c: Context<RelayEnv>, address: string, code: string) => {
    c.set('unlogged', true);
    streak.refused(code);
    const decision = await refusals.hit(address);
    if (!decision.allowed && !cutOffUntil.has(address)) {
      if (cutOffUntil.size >= MAX_CUT_OFF) cutOffUntil.delete(cutOffUntil.keys().next().value as string);
      cutOffUntil.set(address, now() + decision.retryAfterSeconds * 1000);
    }
  };

  return async function eventFloodGuard(c, next) {
    const address = keyOf(c);
    const until = cutOffUntil.get(address);
    if (until !== undefined && until > now()) {
      c.set('unlogged', true);
      streak.refused('rate_limited');
      throw new ApiError('rate_limited', Math.max(1, Math.ceil((until - now()) / 1000)));
    }
    if (until !== undefined) cutOffUntil.delete(address);
    const decision = await calls.hit(address);
    if (!decision.allowed) {
      await refused(c, address, 'rate_limited');
      throw new ApiError('rate_limited', decision.retryAfterSeconds);
    }
    try {
      await next();
    } catch (error) {
      await refused(c, address, error instanceof ApiError ? error.code : 'error');
      throw error;
    }
    if (c.res.status >= 400) await refused(c, address, c.get('errorCode') ?? String(c.res.status));
    else streak.accepted();
  };
}

/** One warning when refusals begin, one line when an event is accepted again; nothing in between. */
function refusalStreak(logger: Logger, now: () => number) {
  let current: { count: number; lastAt: number } | null = null;
  return {
    refused(code: string) {
      const time = now();
      if (current !== null && time - current.lastAt < STREAK_QUIET_MS) {
        current.count++;
        current.lastAt = time;
        return;
      }
      const previous = current === null ? '' : ` (the previous streak refused ${current.count})`;
      current = { count: 1, lastAt: time };
      logger.warn(
        `Upstream events are being refused (first: ${code})${previous}: further refusals are counted, not logged, until an event is accepted or none is refused for ${STREAK_QUIET_MS / 1000} s. A wrong UPSTREAM_EVENTS_SECRET on one side, or someone probing the path.`,
      );
    },
    accepted() {
      if (current === null) return;
      logger.info(`Upstream events accepted again after ${current.count} refused.`);
      current = null;
    },
  };
}
