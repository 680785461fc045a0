// While the service's events arrive, a watch reads only as a safety net for a lost event; the instance's budget
// (STREAM_SAFETY_NET_READS_PER_SECOND) bounds those reads however many conversations it watches, by stretching each
// idle watch's period, while a conversation awaiting a reply keeps the two-minute net.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AWAITED_FOR_MS, nextReadDelayMs, SAFETY_NET_MS } from '../../../src/relay/live/cadence.ts';
import { readSettings } from '../../../src/relay/settings.ts';

const NOW = 10_000_000;
const anyRandom = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });
const idle = { now: NOW, lastActivityAt: NOW - AWAITED_FOR_MS, eventsLive: true, failures: 0, retryAfterMs: 0 };

describe('the safety net within the instance budget', () => {
  it('idle watches read no more often, between them, than the budget: each waits at least watches ÷ budget', () => {
    fc.assert(
      fc.property(
        anyRandom,
        fc.integer({ min: 1, max: 200_000 }),
        fc.integer({ min: 1, max: 1000 }),
        fc.boolean(),
        (r, watches, budget, opening) => {
          const delay = nextReadDelayMs({ ...idle, watches, safetyNetReadsPerSecond: budget, opening }, () => r);
          const period = Math.max(SAFETY_NET_MS, (watches / budget) * 1000);
          // Opening: anywhere in the period (never sooner than the two-minute net); after: the period, spread upward
          // (the period is in whole seconds).
          return opening
            ? delay >= SAFETY_NET_MS && delay <= (period + 1000) * 1.2
            : delay >= period && delay <= (period + 1000) * 1.2;
        },
      ),
    );
  });

  it("a deploy's reconnects: first reads spread over the whole stretched period, not bunched a period later", () => {
    const delays = Array.from({ length: 1000 }, (_, index) =>
      nextReadDelayMs({ ...idle, watches: 50_000, safetyNetReadsPerSecond: 50, opening: true }, () => index / 1000),
    );
    // 50,000 watches at 50 a second: a 1,000 s period; every tenth of it holds about a tenth of the first reads.
    const tenth = (1000 * 1.2 * 1000 - SAFETY_NET_MS) / 10;
    for (let slice = 0; slice < 10; slice++) {
      const inSlice = delays.filter(
        (delay) => delay >= SAFETY_NET_MS + slice * tenth && delay < SAFETY_NET_MS + (slice + 1) * tenth,
      ).length;
      expect(inSlice).toBeGreaterThan(80);
      expect(inSlice).toBeLessThan(120);
    }
  });

  it('a conversation the patient wrote in lately keeps the two-minute net, whatever the budget', () => {
    fc.assert(
      fc.property(anyRandom, fc.integer({ min: 0, max: AWAITED_FOR_MS - 1 }), (r, sinceActivity) => {
        const delay = nextReadDelayMs(
          { ...idle, lastActivityAt: NOW - sinceActivity, watches: 100_000, safetyNetReadsPerSecond: 1 },
          () => r,
        );
        return delay >= SAFETY_NET_MS && delay <= SAFETY_NET_MS * 1.2;
      }),
    );
  });

  it('STREAM_SAFETY_NET_READS_PER_SECOND: 50 unless set, and never zero', () => {
    const secret = () => new Uint8Array(32).fill(4);
    expect(readSettings({ NODE_ENV: 'development' }, secret).streamSafetyNetReadsPerSecond).toBe(50);
    expect(
      readSettings({ NODE_ENV: 'development', STREAM_SAFETY_NET_READS_PER_SECOND: '200' }, secret)
        .streamSafetyNetReadsPerSecond,
    ).toBe(200);
    expect(() => readSettings({ NODE_ENV: 'development', STREAM_SAFETY_NET_READS_PER_SECOND: '0' }, secret)).toThrow(
      /STREAM_SAFETY_NET_READS_PER_SECOND/,
    );
  });
});
