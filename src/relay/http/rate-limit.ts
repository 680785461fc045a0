import type { Context, MiddlewareHandler } from 'hono';
import { ApiError } from './api-error.ts';
import type { RelayEnv } from './env.ts';
import type { RateLimiter } from '../protection/rate-limiter.ts';

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
  return async function rateLimit(c, next) {
    const decision = await limiter.hit(keyOf(c));
    if (!decision.allowed) throw new ApiError('rate_limited', decision.retryAfterSeconds);
    await next();
  };
}
