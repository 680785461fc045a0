// Retry timing for calls to the relay: spread out (full jitter) so that many panels recovering from the same outage
// do not retry in step, and bounded so that a visitor never waits long for an automatic retry.

const BASE_MS = 1000;
const CAP_MS = 30_000;
// A server may ask for a longer pause than our own cap, but not an unbounded one.
const RETRY_AFTER_CAP_MS = 5 * 60_000;

/** After this many automatic attempts (the first send included) the panel stops and offers "Try again". */
export const MAX_AUTOMATIC_ATTEMPTS = 6;

/**
 * Delay before retry number `attempt` (1 for the first retry): capped exponential with full jitter, base 1000 ms,
 * cap 30000 ms; when the server sent Retry-After (ms), wait at least that (still capped at 5 minutes). `random`
 * returns [0,1).
 */
export function retryDelayMs(attempt: number, retryAfterMs: number | undefined, random: () => number): number {
  const step = Number.isFinite(attempt) ? Math.max(1, Math.floor(attempt)) : 1;
  // 2 ** 30 is already far past the cap; stop there so huge attempts stay finite.
  const ceiling = Math.min(CAP_MS, BASE_MS * 2 ** Math.min(step - 1, 30));
  const roll = random();
  const fraction = Number.isFinite(roll) ? Math.min(Math.max(roll, 0), 1) : 0;
  const jittered = Math.floor(fraction * ceiling);
  // Number.isFinite is false for undefined too.
  const serverAsked = Number.isFinite(retryAfterMs) && retryAfterMs! > 0 ? Math.ceil(retryAfterMs!) : 0;
  return Math.min(Math.max(jittered, serverAsked), RETRY_AFTER_CAP_MS);
}
