// Quotas shared by every relay instance, in Redis, through rate-limiter-flexible (atomic counters with expiry, the
// maintained library for exactly this). When Redis is unreachable a quota fails open: patients keep chatting, and
// the operator gets one warning a minute, not one per request.
import { hash } from 'node:crypto';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { isReconnecting, type RedisClient } from '../shared-state/redis-client.ts';
import type { RateDecision, RateLimiter } from './rate-limiter.ts';

export interface RedisRateLimitOptions {
  client: RedisClient;
  /** Names the quota in Redis, so different quotas never share counters. */
  name: string;
  limit: number;
  windowMs: number;
  /** Called when Redis could not be asked (the decision was then "allowed"). */
  onUnavailable: () => void;
}

export function createRedisRateLimiter({
  client,
  name,
  limit,
  windowMs,
  onUnavailable,
}: RedisRateLimitOptions): RateLimiter {
  const limiter = new RateLimiterRedis({
    storeClient: client,
    keyPrefix: `pwc:quota:${name}`,
    points: limit,
    duration: Math.max(1, Math.round(windowMs / 1000)),
  });
  return {
    async hit(key): Promise<RateDecision> {
      if (isReconnecting(client)) {
        onUnavailable();
        return { allowed: true };
      }
      try {
        // Counted under a digest: the keys are visitors' addresses and upstream conversation ids, which Redis need
        // not hold.
        await limiter.consume(hash('sha256', key, 'base64url'));
        return { allowed: true };
      } catch (rejection) {
        // rate-limiter-flexible rejects with a RateLimiterRes when the quota is used up, with an Error when Redis failed.
        if (rejection instanceof RateLimiterRes) {
          return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) };
        }
        onUnavailable();
        return { allowed: true };
      }
    },
  };
}
