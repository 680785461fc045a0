// The live streams of one relay instance, and one upstream watch per conversation that they share (watch-reads.ts). A
// watch starts with its first stream and stops with its last. The service's events (upstream-events.ts) and the
// patient's own sends wake a watch at once. This file composes the parts and counts the connections that the limits
// hold: what is written to a stream (stream-writes.ts), a new stream's catch-up (catch-up.ts), and the sweep for
// heartbeats and lifetimes (stream-sweep.ts).
import type { StreamReconnect } from '../../shared/wire.ts';
import type { ReadPolicy, ReadSubject } from '../conversations/read-policy.ts';
import { FAST_FOR_MS, FAST_MS } from './cadence.ts';
import { createCatchUp } from './catch-up.ts';
import type { Stream, Watch } from './live-records.ts';
import type { ReadScheduler } from './read-scheduler.ts';
import { sseComment, sseEvent } from './sse.ts';
import type { StreamSink } from './stream-sink.ts';
import { createStreamSweep } from './stream-sweep.ts';
import { createStreamWrites } from './stream-writes.ts';
import { createWatchReads } from './watch-reads.ts';

export interface LiveHubOptions {
  /** Every read of a conversation goes through it: a stream's catch-up and its watch's reads alike. */
  policy: ReadPolicy;
  scheduler: ReadScheduler;
  /** How long a stream lives before it asks the panel to reconnect (jittered ±20 %), so load spreads after deploys. */
  lifetimeMs: number;
  maxStreams: number;
  maxStreamsPerConversation: number;
  /** The most bytes a stream may have written that its client has not taken; past it, its connection is cut. */
  maxUnsentBytes: number;
  /**
   * While the service's events arrive, the safety-net reads a second this instance's idle watches may make between
   * them (cadence.ts); unset, every watch reads every SAFETY_NET_MS however many there are.
   */
  safetyNetReadsPerSecond?: number;
  /**
   * Tells the other instances that the patient wrote here (the event bus): the instance holding the patient's stream
   * may be another one, and it is the one that must read fast.
   */
  announceActivity?: (conversationId: string) => void;
  now?: () => number;
  random?: () => number;
}

export type OpenRefusal = 'too_many_streams' | 'too_many_for_conversation';

/** Events keep a watch on the slow safety net for this long after the last one arrived. */
const EVENTS_LIVE_FOR_MS = 10 * 60_000;

export function createLiveHub(options: LiveHubOptions) {
  const { policy, scheduler, announceActivity = () => {}, now = Date.now, random = Math.random } = options;
  const watches = new Map<string, Watch>();
  /**
   * When the patient last wrote, for conversations nobody watches here yet: the panel opens its stream just before its
   * first send, and the send may still arrive first. Kept FAST_FOR_MS, oldest first.
   */
  const recentActivity = new Map<string, number>();
  /** Open connections, ended streams included until their connection is gone: what the limits count. */
  let connections = 0;
  const connectionsPerConversation = new Map<string, number>();
  let lastEventAt = Number.NEGATIVE_INFINITY;

  const writes = createStreamWrites({ watches, maxUnsentBytes: options.maxUnsentBytes, now });
  const { write, end } = writes;
  const eventsLive = () => now() - lastEventAt < EVENTS_LIVE_FOR_MS;
  const { schedule, nextDelay } = createWatchReads({
    policy,
    scheduler,
    writes,
    eventsLive,
    watchCount: () => watches.size,
    safetyNetReadsPerSecond: options.safetyNetReadsPerSecond ?? Number.POSITIVE_INFINITY,
    now,
    random,
  });
  /** Read the conversation now, if anyone here watches it (End chat on another tab ends this one's stream). */
  const wake = (conversationId: string) => {
    const watch = watches.get(conversationId);
    if (watch !== undefined) schedule(watch, 0);
  };
  const catchUp = createCatchUp({ policy, scheduler, writes, wake });
  const sweep = createStreamSweep({ policy, writes, now });

  function gone(stream: Stream) {
    end(stream);
    sweep.remove(stream);
    connections -= 1;
    const id = stream.subject.conversationId;
    const left = (connectionsPerConversation.get(id) ?? 1) - 1;
    if (left > 0) connectionsPerConversation.set(id, left);
    else connectionsPerConversation.delete(id);
    if (connections === 0) sweep.stop();
  }

  return {
    /** Open stream connections, ended ones included until their connection is gone. */
    get streams() {
      return connections;
    },
    get watches() {
      return watches.size;
    },

    /** Whether one more stream may open for this conversation (checked before the 200). */
    refusal(conversationId: string): OpenRefusal | null {
      if (connections >= options.maxStreams) return 'too_many_streams';
      if ((connectionsPerConversation.get(conversationId) ?? 0) >= options.maxStreamsPerConversation)
        return 'too_many_for_conversation';
      return null;
    },

    /**
     * A new stream: its catch-up after `after` from reads of its own (a panel coming back after a gap), then the
     * conversation's shared watch. The caller has asked the policy to admit the handle before the 200.
     */
    async open(subject: ReadSubject, after: number, sink: StreamSink) {
      const t = now();
      const conversationId = subject.conversationId;
      const stream: Stream = {
        sink,
        subject,
        cursor: after,
        catchingUp: true,
        ended: false,
        status: null,
        statusAsOf: 0,
        endsAt: t + Math.round(options.lifetimeMs * (0.8 + 0.4 * random())),
        lastWriteAt: t,
        sweepSlot: 0,
      };
      let watch = watches.get(conversationId);
      if (watch === undefined) {
        const lastActivityAt = recentActivity.get(conversationId) ?? Number.NEGATIVE_INFINITY;
        watch = {
          conversationId,
          streams: new Set(),
          timer: null,
          dueAt: 0,
          safetyNet: false,
          reading: false,
          wakeAgain: false,
          readOwed: false,
          lastActivityAt,
          failures: 0,
          retryAfterMs: 0,
        };
        watches.set(conversationId, watch);
      }
      watch.streams.add(stream);
      connections += 1;
      connectionsPerConversation.set(conversationId, (connectionsPerConversation.get(conversationId) ?? 0) + 1);
      sweep.add(stream);
      sweep.start();
      sink.onClose(() => gone(stream));
      // The first bytes at once: a proxy that buffers is found out by the panel's silence timer.
      write(stream, sseComment('stream open'));
      await catchUp(stream);
      const joined = watches.get(conversationId);
      if (joined !== undefined) schedule(joined, joined.readOwed ? 0 : nextDelay(joined, true));
    },

    /** The patient wrote or asked for a person through this instance: a reply is likely, read quickly for a while. */
    activity(conversationId: string) {
      this.activityElsewhere(conversationId);
      announceActivity(conversationId);
    },

    /**
     * The patient wrote or asked for a person, on this instance or another (the event bus): if this instance holds
     * the conversation's streams, or soon will, its watch reads quickly for a while.
     */
    activityElsewhere(conversationId: string) {
      const watch = watches.get(conversationId);
      if (watch === undefined) {
        const t = now();
        for (const [id, at] of recentActivity) {
          if (t - at < FAST_FOR_MS) break;
          recentActivity.delete(id);
        }
        recentActivity.delete(conversationId);
        recentActivity.set(conversationId, t);
        return;
      }
      watch.lastActivityAt = now();
      if (now() - lastEventAt >= EVENTS_LIVE_FOR_MS) schedule(watch, FAST_MS);
    },

    wake,

    /** The service says the conversation changed: read it now; while events arrive, watches only poll slowly. */
    serviceEvent(conversationId: string) {
      lastEventAt = now();
      this.wake(conversationId);
    },

    /** Every stream ends with a reconnect hint (the instance stops): the panels reconnect to another instance. */
    closeAll(reason: StreamReconnect['reason']) {
      const last = sseEvent('reconnect', { reason } satisfies StreamReconnect);
      for (const watch of [...watches.values()]) for (const stream of [...watch.streams]) end(stream, last);
    },
  };
}

export type LiveHub = ReturnType<typeof createLiveHub>;
