// A watch's reads: one upstream read at a time for every caught-up stream of a conversation, at the cadence of
// cadence.ts, through the scheduler that bounds the reads in flight. However many tabs a patient has open, the
// service is read for that conversation as often as for one.
import type { ReadPolicy } from '../conversations/read-policy.ts';
import { toWireMessage } from '../conversations/wire-message.ts';
import { UpstreamError } from '../upstream/index.ts';
import { EVENTS_STATUS_AGE_MS, nextReadDelayMs, SAFETY_NET_MS } from './cadence.ts';
import type { Watch } from './live-records.ts';
import type { ReadScheduler } from './read-scheduler.ts';
import { messageFrames, refusalEvent, statusFrame, statusOf, type StreamWrites } from './stream-writes.ts';

export interface WatchReadsOptions {
  policy: ReadPolicy;
  scheduler: ReadScheduler;
  writes: StreamWrites;
  /** Whether the service's events arrive: then a watch only polls slowly, and may reuse a recent status. */
  eventsLive: () => boolean;
  /** Conversations the instance watches now, which stretch the safety net past the budget below. */
  watchCount: () => number;
  /** Safety-net reads a second the instance's idle watches may make between them (cadence.ts). */
  safetyNetReadsPerSecond: number;
  now: () => number;
  random: () => number;
}

export function createWatchReads(options: WatchReadsOptions) {
  const { policy, scheduler, writes, eventsLive, now, random } = options;
  const { end, deliverMessages, deliverStatus } = writes;

  function schedule(watch: Watch, requestedMs: number) {
    if (watch.streams.size === 0) return;
    const delayMs = roundedDelayMs(requestedMs);
    const dueAt = now() + delayMs;
    // Only ever sooner: a wake or a send does not push back a read already due.
    if (watch.timer !== null && watch.dueAt <= dueAt) return;
    if (watch.timer !== null) clearTimeout(watch.timer);
    watch.dueAt = dueAt;
    watch.safetyNet = delayMs >= SAFETY_NET_MS;
    // The watch as the timer's argument, not captured by a closure: one function for every watch's timer.
    watch.timer = setTimeout(due, delayMs, watch);
    watch.timer.unref();
  }

  function due(watch: Watch) {
    watch.timer = null;
    void tick(watch);
  }

  /**
   * The delay before the watch's next read. `opening`: its first since a stream of it opened. A watch whose last read
   * was not the safety net's (a stream's first, a woken one, one from before the service's events arrived) has its
   * first safety-net read spread over the whole period too: when events start arriving, every watch turns to the
   * safety net at once, and would otherwise read together a period later.
   */
  const nextDelay = (watch: Watch, opening = !watch.safetyNet) =>
    nextReadDelayMs(
      {
        now: now(),
        lastActivityAt: watch.lastActivityAt,
        eventsLive: eventsLive(),
        failures: watch.failures,
        retryAfterMs: watch.retryAfterMs,
        watches: options.watchCount(),
        safetyNetReadsPerSecond: options.safetyNetReadsPerSecond,
        opening,
      },
      random,
    );

  /** One read for every stream of the watch that has caught up, from the oldest cursor among them. */
  async function tick(watch: Watch) {
    if (watch.reading) {
      watch.wakeAgain = true;
      return;
    }
    const caughtUp = [...watch.streams].filter((stream) => !stream.catchingUp);
    // A stream still reading its catch-up may have read before whatever this read is for (a reply the service just
    // announced): it is owed a read of its own as soon as it has caught up (live-hub.ts).
    watch.readOwed = caughtUp.length < watch.streams.size;
    if (caughtUp.length === 0) {
      schedule(watch, nextDelay(watch));
      return;
    }
    watch.reading = true;
    let again = false;
    try {
      const cursor = Math.min(...caughtUp.map((stream) => stream.cursor));
      // The handle that expires last: a stream whose own handle has expired is ended below, not served.
      const subject = caughtUp.reduce(
        (latest, stream) => (stream.subject.expiresAt > latest.expiresAt ? stream.subject : latest),
        caughtUp[0]!.subject,
      );
      const answer = await scheduler.run(
        () =>
          policy.read(
            subject,
            cursor,
            eventsLive() ? { acceptStatusAgeMs: EVENTS_STATUS_AGE_MS, statusChangesAnnounced: true } : {},
          ),
        watch.safetyNet ? 'background' : 'now',
      );
      watch.failures = 0;
      watch.retryAfterMs = 0;
      if (answer.refused !== null) {
        for (const stream of [...watch.streams]) end(stream, refusalEvent(answer.refused));
        return;
      }
      // Serialised once for every stream of the watch.
      const messages = messageFrames(answer.page.messages.map(toWireMessage));
      const status = statusFrame(statusOf(answer.conversation));
      for (const stream of [...watch.streams]) {
        if (stream.catchingUp) continue;
        if (policy.expired(stream.subject)) {
          end(stream, refusalEvent('session_expired'));
          continue;
        }
        // Caught up while this read ran, from an older reading: the next read starts from its cursor.
        if (stream.cursor < cursor) {
          again = true;
          continue;
        }
        deliverMessages(stream, messages);
        deliverStatus(stream, status);
      }
      again ||= answer.page.hasMore;
    } catch (error) {
      // The streams stay open (their heartbeats go on); the watch backs off, and honours a 429's Retry-After.
      watch.failures += 1;
      watch.retryAfterMs =
        error instanceof UpstreamError && error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : 0;
    } finally {
      watch.reading = false;
    }
    again ||= watch.wakeAgain;
    watch.wakeAgain = false;
    schedule(watch, again ? 0 : nextDelay(watch));
  }

  return { schedule, nextDelay };
}

/** Delays from here on are rounded up to whole seconds; shorter ones (the fast cadence, a wake) are kept as they are. */
const ROUNDED_FROM_MS = 5000;

/**
 * Node keeps a list of timers per distinct delay: tens of thousands of idle watches with jittered delays would make
 * as many lists, each with its own bookkeeping. Whole seconds make a few dozen lists, the spread stays (in steps of a
 * second) and a read is never sooner than its cadence says.
 */
export const roundedDelayMs = (ms: number): number => (ms < ROUNDED_FROM_MS ? ms : Math.ceil(ms / 1000) * 1000);

export type WatchReads = ReturnType<typeof createWatchReads>;
