import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MAX_AUTOMATIC_ATTEMPTS, retryDelayMs } from '../../../../src/frame/model/backoff.ts';

describe('retryDelayMs', () => {
  it('allows six automatic attempts', () => {
    expect(MAX_AUTOMATIC_ATTEMPTS).toBe(6);
  });

  it.each([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])('stays within the exponential bound on attempt %i', (attempt) => {
    const ceiling = Math.min(30_000, 1000 * 2 ** (attempt - 1));
    expect(retryDelayMs(attempt, undefined, () => 0)).toBe(0);
    const high = retryDelayMs(attempt, undefined, () => 0.999);
    expect(high).toBeLessThan(ceiling);
    expect(high).toBeGreaterThanOrEqual(Math.floor(ceiling * 0.999));
  });

  it('grows with the attempt until the cap', () => {
    expect(retryDelayMs(1, undefined, () => 0.5)).toBe(500);
    expect(retryDelayMs(3, undefined, () => 0.5)).toBe(2000);
    expect(retryDelayMs(6, undefined, () => 0.5)).toBe(15_000);
    expect(retryDelayMs(7, undefined, () => 0.5)).toBe(15_000);
    expect(retryDelayMs(1000, undefined, () => 0.5)).toBe(15_000);
  });

  it('waits at least what Retry-After asked', () => {
    expect(retryDelayMs(1, 20_000, () => 0)).toBe(20_000);
    expect(retryDelayMs(1, 120_000, () => 0.999)).toBe(120_000);
    expect(retryDelayMs(5, 100, () => 0.5)).toBe(8000);
  });

  it('caps Retry-After at five minutes', () => {
    expect(retryDelayMs(1, 3_600_000, () => 0)).toBe(300_000);
  });

  it('ignores a meaningless Retry-After and a bad attempt number', () => {
    expect(retryDelayMs(1, Number.NaN, () => 0)).toBe(0);
    expect(retryDelayMs(1, -5000, () => 0)).toBe(0);
    expect(retryDelayMs(0, undefined, () => 0.5)).toBe(500);
    expect(retryDelayMs(Number.NaN, undefined, () => 0.5)).toBe(500);
  });

  it('is always a whole number between 0 and five minutes', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -5, max: 100 }),
        fc.option(fc.double(), { nil: undefined }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, retryAfter, roll) => {
          const delay = retryDelayMs(attempt, retryAfter, () => roll);
          return Number.isInteger(delay) && delay >= 0 && delay <= 300_000;
        },
      ),
    );
  });
});
