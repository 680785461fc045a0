// How late this process's event loop has recently run its timers: the one measure of "this instance can answer" that
// a load balancer cannot see from outside until requests already suffer. The relay's work is I/O, so a healthy loop
// runs a few milliseconds late at most; a loop that ran a second late held every request on this instance that long.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

export interface EventLoopDelayOptions {
  /**
   * The least span "recent" covers. Windows turn over only when read, so a read covers at least the last window and
   * everything since the read before it: no stall between two probes goes unseen, however far apart they are.
   */
  windowMs?: number;
  /** The sampling timer's interval: the finest delay it can see. */
  resolutionMs?: number;
  now?: () => number;
}

export const DEFAULT_DELAY_WINDOW_MS = 5_000;

/**
 * Returns a reader of the largest event-loop delay, in milliseconds, seen in the recent window. The largest, not a
 * percentile: a loop blocked for two seconds in every ten records one slow sample among hundreds, which a
 * percentile hides, yet it holds each request that arrives meanwhile. A single hiccup is absorbed by the load
 * balancer's own rule (several failed probes in a row before an instance leaves rotation).
 *
 * Sampling starts at the first read (the first probe; its first tick only sets a baseline), so a relay that nobody
 * probes (a test, a single instance) runs no sampling timer; Node's timer behind `monitorEventLoopDelay` never keeps the process alive, and there is no
 * timer of ours.
 */
export function createEventLoopDelaySampler({
  windowMs = DEFAULT_DELAY_WINDOW_MS,
  resolutionMs = 20,
  now = () => performance.now(),
}: EventLoopDelayOptions = {}): () => number {
  let histogram: IntervalHistogram | null = null;
  let windowStart = 0;
  let previousMaxMs = 0;
  return function recentEventLoopDelayMs() {
    const t = now();
    if (histogram === null) {
      histogram = monitorEventLoopDelay({ resolution: resolutionMs });
      histogram.enable();
      windowStart = t;
      return 0;
    }
    // Before its first sample a histogram's max is 0; values are nanoseconds.
    const currentMaxMs = histogram.max / 1e6;
    if (t - windowStart >= windowMs) {
      previousMaxMs = currentMaxMs;
      histogram.reset();
      windowStart = t;
    }
    return Math.max(previousMaxMs, currentMaxMs);
  };
}
