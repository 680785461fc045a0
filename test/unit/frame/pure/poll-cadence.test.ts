import { describe, expect, it } from 'vitest';
import {
  POLL_FAST_MS,
  POLL_IDLE_MS,
  POLL_SLOW_MS,
  nextPollDelayMs,
  type PollContext,
} from '../../../../src/frame/model/poll-cadence.ts';

const open: PollContext = { msSinceVisitorSent: null, panelOpen: true, tabHidden: false, awaitingReply: false };

describe('nextPollDelayMs', () => {
  it('has the documented cadences', () => {
    expect([POLL_FAST_MS, POLL_IDLE_MS, POLL_SLOW_MS]).toEqual([1000, 5000, 15000]);
  });

  it('pauses in a hidden tab, whatever else is true', () => {
    expect(nextPollDelayMs({ ...open, tabHidden: true, awaitingReply: true, msSinceVisitorSent: 0 })).toBeNull();
    expect(nextPollDelayMs({ ...open, tabHidden: true, panelOpen: false })).toBeNull();
  });

  it('polls slowly while the panel is closed', () => {
    expect(nextPollDelayMs({ ...open, panelOpen: false })).toBe(POLL_SLOW_MS);
    expect(nextPollDelayMs({ ...open, panelOpen: false, awaitingReply: true, msSinceVisitorSent: 10 })).toBe(
      POLL_SLOW_MS,
    );
  });

  it('polls fast while a reply is awaited', () => {
    expect(nextPollDelayMs({ ...open, awaitingReply: true })).toBe(POLL_FAST_MS);
    expect(nextPollDelayMs({ ...open, awaitingReply: true, msSinceVisitorSent: 600_000 })).toBe(POLL_FAST_MS);
  });

  it('polls fast for 30 s after the visitor sends', () => {
    expect(nextPollDelayMs({ ...open, msSinceVisitorSent: 0 })).toBe(POLL_FAST_MS);
    expect(nextPollDelayMs({ ...open, msSinceVisitorSent: 29_999 })).toBe(POLL_FAST_MS);
    expect(nextPollDelayMs({ ...open, msSinceVisitorSent: -50 })).toBe(POLL_FAST_MS);
    expect(nextPollDelayMs({ ...open, msSinceVisitorSent: 30_000 })).toBe(POLL_IDLE_MS);
  });

  it('idles otherwise', () => {
    expect(nextPollDelayMs(open)).toBe(POLL_IDLE_MS);
    expect(nextPollDelayMs({ ...open, msSinceVisitorSent: 45_000 })).toBe(POLL_IDLE_MS);
  });
});
