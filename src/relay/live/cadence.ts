// How often a watch reads its conversation upstream. Never more than the panel's own polling did in the same state
// (src/frame/model/poll-cadence.ts: 1 s just after the patient writes, 5 s open and idle, 15 s closed), so streaming
// costs the service no more than polling, and two tabs cost one watch.

/** Just after the patient writes or asks for a person on this instance: a reply is likely soon. */
export const FAST_MS = 1000;
/** How long "just after" lasts. */
export const FAST_FOR_MS = 30_000;
/** Otherwise: the closed panel's polling rate, so an idle stream never costs more than a closed panel did. */
export const IDLE_MS = 15_000;
/**
 * While the service's events arrive, they wake the watch: reads are only a safety net for a lost event (which the
 * sender retries once). Two minutes: at one minute, many thousands of idle streams cost an instance a noticeable share of a core in
 * reads alone (bench/results.md, live delivery).
 */
export const SAFETY_NET_MS = 120_000;
/**
 * A conversation the patient wrote in (or asked for a person in) this recently keeps SAFETY_NET_MS whatever the
 * instance's budget: a reply is awaited there, and such conversations are few among an instance's idle streams.
 */
export const AWAITED_FOR_MS = 10 * 60_000;
/**
 * While the service's events arrive, a watch's safety-net read reuses a status reading up to this old: a status change
 * comes with its own event (which drops the reading), so re-reading the status at every safety-net read would double
 * the cost of an idle watch for nothing but a lost event's sake. A lost status event shows at most this late.
 */
export const EVENTS_STATUS_AGE_MS = 5 * 60_000;
/** After a failed read: doubled per failure up to this. */
export const MAX_BACKOFF_MS = 60_000;

export interface CadenceState {
  now: number;
  /** When the patient last wrote or escalated through this instance. */
  lastActivityAt: number;
  /** Whether the service's events have been seen recently (UPSTREAM_EVENTS_SECRET set and an event arrived). */
  eventsLive: boolean;
  /** Consecutive failed reads. */
  failures: number;
  /** A 429's Retry-After, in ms, or 0. */
  retryAfterMs: number;
  /** Conversations this instance watches: with the budget below, how far the safety net stretches. */
  watches?: number;
  /**
   * The instance's budget for safety-net reads (STREAM_SAFETY_NET_READS_PER_SECOND): while the service's events
   * arrive, its idle watches read on average at most this many times a second between them. Unset: no stretching.
   */
  safetyNetReadsPerSecond?: number;
  /** The watch's first read after its stream opened (its catch-up has just read): spread over the whole period. */
  opening?: boolean;
}

/**
 * The safety net's period for one watch: SAFETY_NET_MS, stretched so that the instance's idle watches between them
 * read no more often than its budget allows. A lost event (which the service retries once) then shows at most this
 * much later (plus the spread); a conversation awaiting a reply keeps SAFETY_NET_MS.
 */
export function safetyNetPeriodMs(state: CadenceState): number {
  const { watches = 0, safetyNetReadsPerSecond = Number.POSITIVE_INFINITY } = state;
  if (state.now - state.lastActivityAt < AWAITED_FOR_MS) return SAFETY_NET_MS;
  return Math.max(SAFETY_NET_MS, Math.ceil(watches / safetyNetReadsPerSecond) * 1000);
}

/**
 * The delay before the next read; `random` in [0, 1) spreads watches so they do not read in step. The spread is only
 * ever longer than the nominal delay (up to 20 %), so a watch never reads more often than the panel's polling did.
 */
export function nextReadDelayMs(state: CadenceState, random: () => number): number {
  const jitter = (ms: number) => Math.round(ms * (1 + 0.2 * random()));
  if (state.failures > 0)
    return Math.max(jitter(Math.min(MAX_BACKOFF_MS, IDLE_MS * 2 ** (state.failures - 1))), state.retryAfterMs);
  if (state.eventsLive) {
    const period = safetyNetPeriodMs(state);
    // A stream's first read lands anywhere in the (stretched) period, so that the watches of streams opened together
    // (a deploy's reconnects) do not all read together a period later, and every period after.
    if (state.opening && period > SAFETY_NET_MS)
      return SAFETY_NET_MS + Math.round(random() * (period * 1.2 - SAFETY_NET_MS));
    return jitter(period);
  }
  if (state.now - state.lastActivityAt < FAST_FOR_MS) return FAST_MS;
  return jitter(IDLE_MS);
}
