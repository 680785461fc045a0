import type { Context, MiddlewareHandler, Next } from 'hono';
import { ApiError } from './api-error.ts';
import type { RelayEnv } from './env.ts';
import type { RateDecision, RateLimiter } from '../protection/rate-limiter.ts';

/**
 * Answers 429 `rate_limited` with Retry-After once `keyOf(c)` has used up its quota.
 *
 * @example
 * app.use('/v1/*', rateLimit({ limiter: perMinute, keyOf: createClientAddress(settings.trustProxy) }))
 */
export function rateLimit({
  limiter,
  keyOf,
}: {
  limiter: RateLimiter;
  keyOf: (c: Context<RelayEnv>) => string;
}): MiddlewareHandler<RelayEnv> {
  const admit = (decision: RateDecision, next: Next) => {
    if (!decision.allowed) throw new ApiError('rate_limited', decision.retryAfterSeconds);
    return next();
  };
  // An in-memory quota answers at once: its answer is not awaited, which would cost every request a turn of the
  // microtask queue for nothing. A refusal thrown here is Hono's to catch, as one thrown after an await.
  return function rateLimit(c, next) {
    const decision = limiter.hit(keyOf(c));
    return decision instanceof Promise ? decision.then((answer) => admit(answer, next)) : admit(decision, next);
  };
}
