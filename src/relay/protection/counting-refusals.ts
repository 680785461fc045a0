// A quota that counts its refusals: the same limiter, with each "not allowed" reported under the quota's fixed name.
import type { RelayMetrics } from '../metrics/metrics.ts';
import type { RateDecision, RateLimiter } from './rate-limiter.ts';

export function countingRefusals(
  limiter: RateLimiter,
  name: string,
  metrics: Pick<RelayMetrics, 'quotaRefused'>,
): RateLimiter {
  const count = (decision: RateDecision) => {
    if (!decision.allowed) metrics.quotaRefused(name);
    return decision;
  };
  return {
    // The memory limiter answers synchronously (on every request): no promise is added where there was none.
    hit(key) {
      const decision = limiter.hit(key);
      return decision instanceof Promise ? decision.then(count) : count(decision);
    },
  };
}
