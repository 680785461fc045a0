// The service's events path (POST /v1/upstream-events) is open to the internet and authenticated only by each
// event's signature, so a flood of unsigned or replayed calls would cost a quota hit, a route and a log line each.
//
// The guard checks the signature first, on a body read only up to the contract's cap: it is the one thing that tells
// the service from anyone else, and it is cheap (that bounded read, whose bytes are on the wire anyway, and one HMAC
// over a few kilobytes at most, less than the quota hit it comes before). A correctly signed event then goes through
// whatever anyone else sent: it counts only against a quota of signed calls per source address, which nobody without
// the secret (or a captured event, replayable within the signature's few minutes) can spend.
//
// Every other call counts against a small quota of refusals per source address, past which that address is refused
// with 429 before its route runs and before any quota hit, until its window ends. The address is the full one, never
// the IPv6 /64 visitors' quotas count: the service's neighbours must not share its count. Refused calls write no
// request line; a streak of them is one warning line.
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
  /** Whether the call carries a correctly signed event (event-signature.ts); reads the body up to a cap. */
  isSigned: (c: Context<RelayEnv>) => Promise<boolean>;
  /** Correctly signed calls, per source address: the service's own volume. */
  signedCalls: RateLimiter;
  /** Refused calls (bad signature, bad body, too large), per source address. */
  refusals: RateLimiter;
  /** The source address, whole and in its one spelling (never a network). */
  keyOf: (c: Context<RelayEnv>) => string;
  logger: Logger;
  now?: () => number;
}

/**
 * @example
 * app.use(UPSTREAM_EVENTS_PATH, eventFloodGuard({ isSigned, signedCalls, refusals, keyOf: sourceAddressOf, logger }))
 */
export function eventFloodGuard({
  isSigned,
  signedCalls,
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

  /** The route's answer, logged as the streak sees it; a refusal counted against `address` unless signed. */
  const run = async (c: Context<RelayEnv>, next: () => Promise<void>, address: string | null) => {
    try {
      await next();
    } catch (error) {
      const code = error instanceof ApiError ? error.code : 'error';
      if (address === null) streak.refused(code);
      else await refused(c, address, code);
      throw error;
    }
    if (c.res.status < 400) streak.accepted();
    else if (address === null) streak.refused(c.get('errorCode') ?? String(c.res.status));
    else await refused(c, address, c.get('errorCode') ?? String(c.res.status));
  };

  return async function eventFloodGuard(c, next) {
    const address = keyOf(c);
    // A body that fails to arrive is not signed; the route's own read then fails and counts as a refusal.
    if (await isSigned(c).catch(() => false)) {
      const decision = await signedCalls.hit(address);
      if (!decision.allowed) {
        c.set('unlogged', true);
        streak.refused('rate_limited');
        throw new ApiError('rate_limited', decision.retryAfterSeconds);
      }
      return run(c, next, null);
    }
    const until = cutOffUntil.get(address);
    if (until !== undefined && until > now()) {
      c.set('unlogged', true);
      streak.refused('rate_limited');
      throw new ApiError('rate_limited', Math.max(1, Math.ceil((until - now()) / 1000)));
    }
    if (until !== undefined) cutOffUntil.delete(address);
    return run(c, next, address);
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
