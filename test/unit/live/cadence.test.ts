// A watch's cadence never reads the upstream more often than the panel's polling did in the same state
// (src/frame/model/poll-cadence.ts): streaming must never cost the service more than polling.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FAST_FOR_MS,
  FAST_MS,
  IDLE_MS,
  MAX_BACKOFF_MS,
  nextReadDelayMs,
  SAFETY_NET_MS,
} from '../../../src/relay/live/cadence.ts';
import { POLL_FAST_MS, POLL_SLOW_MS, RECENT_SEND_MS } from '../../../src/frame/model/poll-cadence.ts';

const NOW = 10_000_000;
const anyRandom = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

describe('nextReadDelayMs', () => {
  it('idle: never sooner than a closed panel polled (15 s), spread upward only', () => {
    fc.assert(
      fc.property(anyRandom, (r) => {
        const delay = nextReadDelayMs(
          { now: NOW, lastActivityAt: NOW - FAST_FOR_MS, eventsLive: false, failures: 0, retryAfterMs: 0 },
          () => r,
        );
        return delay >= POLL_SLOW_MS && delay >= IDLE_MS && delay <= IDLE_MS * 1.2;
      }),
    );
  });

  it('just after the patient writes: as often as the panel polled then (1 s), for no longer than the panel did', () => {
    expect(FAST_MS).toBeGreaterThanOrEqual(POLL_FAST_MS);
    expect(FAST_FOR_MS).toBeLessThanOrEqual(RECENT_SEND_MS);
    expect(
      nextReadDelayMs(
        { now: NOW, lastActivityAt: NOW - 1000, eventsLive: false, failures: 0, retryAfterMs: 0 },
        () => 0.5,
      ),
    ).toBe(FAST_MS);
  });

  it('while events arrive: only the slow safety net, even just after the patient writes', () => {
    fc.assert(
      fc.property(anyRandom, fc.integer({ min: 0, max: 10 * FAST_FOR_MS }), (r, sinceActivity) => {
        const delay = nextReadDelayMs(
          { now: NOW, lastActivityAt: NOW - sinceActivity, eventsLive: true, failures: 0, retryAfterMs: 0 },
          () => r,
        );
        return delay >= SAFETY_NET_MS;
      }),
    );
  });

  it('after failures: backs off from 15 s up to the cap, and never sooner than a Retry-After', () => {
    fc.assert(
      fc.property(
        anyRandom,
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 0, max: 300_000 }),
        (r, failures, retryAfterMs) => {
          const delay = nextReadDelayMs(
            { now: NOW, lastActivityAt: NOW, eventsLive: false, failures, retryAfterMs },
            () => r,
          );
          return delay >= Math.max(IDLE_MS, retryAfterMs) && delay <= Math.max(MAX_BACKOFF_MS * 1.2, retryAfterMs);
        },
      ),
    );
  });
});
