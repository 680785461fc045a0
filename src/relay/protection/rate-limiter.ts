// Fixed-window counters per key (an IP, a conversation). Simple and cheap on the hot path; a window boundary can let
// through up to twice the limit for an instant, which is acceptable for abuse protection of this kind.

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** One quota. The in-memory kind answers at once; the Redis kind (redis-rate-limiter.ts), shared by all instances, asynchronously. */
export interface RateLimiter {
  hit(key: string): RateDecision | Promise<RateDecision>;
}

export interface RateLimitOptions {
  limit: number;
  windowMs: number;
  /** The most keys tracked at once; the oldest windows go first. Bounds memory when addresses are spoofed. */
  maxKeys?: number;
  now?: () => number;
}

export function createRateLimiter({ limit, windowMs, maxKeys = 100_000, now = Date.now }: RateLimitOptions): {
  hit(key: string): RateDecision;
} {
  const windows = new Map<string, { startedAt: number; count: number }>();

  return {
    hit(key) {
      const time = now();
      let window = windows.get(key);
      if (window === undefined || time - window.startedAt >= windowMs) {
        windows.delete(key);
        if (windows.size >= maxKeys) {
          const oldest = windows.keys().next();
          if (!oldest.done) windows.delete(oldest.value);
        }
        window = { startedAt: time, count: 0 };
        windows.set(key, window);
      }
      window.count += 1;
      if (window.count <= limit) return { allowed: true };
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((window.startedAt + windowMs - time) / 1000)) };
    },
  };
}
