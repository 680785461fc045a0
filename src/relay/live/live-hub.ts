// The live streams of one relay instance, and one upstream watch per conversation that they share: however many tabs
// a patient has open, the service is read for that conversation as often as for one, at the cadence of cadence.ts,
// through one scheduler that bounds the reads in flight. A watch starts with its first stream and stops with its
// last. The service's events (upstream-events.ts) and the patient's own sends wake a watch at once.
import type { StreamReconnect, StreamStatus, WireMessage } from '../../shared/wire.ts';
import { STREAM_HEARTBEAT_MS } from '../../shared/wire.ts';
import type { ReadPolicy, ReadRefusal, ReadSubject } from '../conversations/read-policy.ts';
import { asOf, toWireMessage } from '../conversations/wire-message.ts';
import { UpstreamError } from '../upstream/index.ts';
import { EVENTS_STATUS_AGE_MS, FAST_FOR_MS, FAST_MS, MAX_BACKOFF_MS, nextReadDelayMs } from './cadence.ts';
import type { ReadScheduler } from './read-scheduler.ts';
import { sseComment, sseEvent } from './sse.ts';
import type { StreamSink } from './stream-sink.ts';

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
  now?: () => number;
  random?: () => number;
}

interface Stream {
  sink: StreamSink;
  subject: ReadSubject;
  /** The newest sequence this stream has delivered. */
  cursor: number;
  /**
   * Reading the history after its cursor with reads of its own, a page at a time and only as fast as its client takes
   * it; the watch's reads reach it once it has caught up.
   */
  catchingUp: boolean;
  /** Taken out of its watch: nothing more is written but its last frame. It still counts until its connection is gone. */
  ended: boolean;
  status: string | null;
  statusAsOf: number;
  endsAt: number;
  lastWriteAt: number;
}

interface Watch {
  conversationId: string;
  streams: Set<Stream>;
  timer: NodeJS.Timeout | null;
  dueAt: number;
  reading: boolean;
  wakeAgain: boolean;
  lastActivityAt: number;
  failures: number;
  retryAfterMs: number;
}

export type OpenRefusal = 'too_many_streams' | 'too_many_for_conversation';

/** Events keep a watch on the slow safety net for this long after the last one arrived. */
const EVENTS_LIVE_FOR_MS = 10 * 60_000;
/** Encoded once: every stream writes these same bytes every 15 s. */
const HEARTBEAT = Buffer.from(sseComment('heartbeat'));
/**
 * How often streams are checked for heartbeats, lifetimes and expired handles: a stream ends at most this late, and
 * its connection is cut at most END_GRACE_MS after that.
 */
const SWEEP_MS = 1000;
/**
 * Messages per catch-up read: a stream whose client stops reading holds at most one such page, and a reconnecting
 * panel's gap is seldom longer. Upstream pages hold at most 100; a page of 100 long messages is over a megabyte.
 */
export const CATCH_UP_PAGE_SIZE = 10;
/** A catch-up read that failed is tried again after this, doubled per failure (up to the watch's longest backoff). */
const CATCH_UP_RETRY_MS = 1000;

const REFUSAL_TEXT: Record<ReadRefusal, string> = {
  session_expired: 'The conversation has expired; start a new one.',
  conversation_resolved: 'The conversation has ended; start a new one.',
};
const refusalEvent = (code: ReadRefusal) => sseEvent('error', { error: { code, message: REFUSAL_TEXT[code] } });
const statusOf = (conversation: { status: StreamStatus['status']; updatedAt: number }): StreamStatus => ({
  status: conversation.status,
  status_as_of: asOf(conversation.updatedAt),
});
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export function createLiveHub(options: LiveHubOptions) {
  const { policy, scheduler, now = Date.now, random = Math.random } = options;
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
  let sweeper: NodeJS.Timeout | null = null;

  /** Writes a frame; false when the client has not taken what was written before. Past the cap, the stream is cut. */
  const write = (stream: Stream, frame: string | Uint8Array): boolean => {
    const ready = stream.sink.write(frame);
    stream.lastWriteAt = now();
    if (stream.sink.unsent <= options.maxUnsentBytes) return ready;
    end(stream);
    stream.sink.destroy();
    return false;
  };

  /** Takes the stream out of its watch, writes its last frame if there is room for it, and ends it. */
  function end(stream: Stream, last?: string) {
    if (stream.ended) return;
    stream.ended = true;
    const watch = watches.get(stream.subject.conversationId);
    if (watch !== undefined && watch.streams.delete(stream) && watch.streams.size === 0) {
      if (watch.timer !== null) clearTimeout(watch.timer);
      watches.delete(watch.conversationId);
    }
    if (last !== undefined && stream.sink.unsent + last.length <= options.maxUnsentBytes) stream.sink.write(last);
    stream.sink.end();
  }

  function gone(stream: Stream) {
    end(stream);
    connections -= 1;
    const id = stream.subject.conversationId;
    const left = (connectionsPerConversation.get(id) ?? 1) - 1;
    if (left > 0) connectionsPerConversation.set(id, left);
    else connectionsPerConversation.delete(id);
    if (connections === 0 && sweeper !== null) {
      clearInterval(sweeper);
      sweeper = null;
    }
  }

  function deliverMessages(stream: Stream, messages: readonly WireMessage[]) {
    for (const message of messages) {
      if (message.sequence <= stream.cursor) continue;
      write(stream, sseEvent('message', message, message.sequence));
      stream.cursor = message.sequence;
      if (stream.ended) return;
    }
  }

  function deliverStatus(stream: Stream, status: StreamStatus) {
    // The panel keeps the newest status by `status_as_of`; a change is sent once, never an older reading.
    if (stream.ended || status.status === stream.status || status.status_as_of < stream.statusAsOf) return;
    write(stream, sseEvent('status', status));
    stream.status = status.status;
    stream.statusAsOf = status.status_as_of;
  }

  /**
   * The history after the stream's cursor, CATCH_UP_PAGE_SIZE messages per read, each message written
   * only once the client has taken the ones before: a client that stops reading holds one page, not the history.
   */
  async function catchUp(stream: Stream) {
    let failures = 0;
    while (!stream.ended) {
      let answer: Awaited<ReturnType<ReadPolicy['read']>>;
      try {
        answer = await scheduler.run(() =>
          policy.read(stream.subject, stream.cursor, { pageSize: CATCH_UP_PAGE_SIZE }),
        );
      } catch {
        // The stream stays open (its heartbeats go on) and tries again; the panel also reads what it missed after a gap.
        failures += 1;
        await pause(Math.min(MAX_BACKOFF_MS, CATCH_UP_RETRY_MS * 2 ** (failures - 1)));
        continue;
      }
      failures = 0;
      if (stream.ended) return;
      if (answer.refused !== null) {
        end(stream, refusalEvent(answer.refused));
        // Another tab's stream of the conversation learns it at its watch's next read: make that now.
        const watch = watches.get(stream.subject.conversationId);
        if (watch !== undefined) schedule(watch, 0);
        return;
      }
      for (const message of answer.page.messages.map(toWireMessage)) {
        if (message.sequence <= stream.cursor) continue;
        const ready = write(stream, sseEvent('message', message, message.sequence));
        stream.cursor = message.sequence;
        if (!ready) await stream.sink.drained();
        if (stream.ended) return;
      }
      deliverStatus(stream, statusOf(answer.conversation));
      if (!answer.page.hasMore) {
        stream.catchingUp = false;
        return;
      }
      await stream.sink.drained();
    }
  }

  function schedule(watch: Watch, delayMs: number) {
    if (watch.streams.size === 0) return;
    const dueAt = now() + delayMs;
    // Only ever sooner: a wake or a send does not push back a read already due.
    if (watch.timer !== null && watch.dueAt <= dueAt) return;
    if (watch.timer !== null) clearTimeout(watch.timer);
    watch.dueAt = dueAt;
    watch.timer = setTimeout(() => {
      watch.timer = null;
      void tick(watch);
    }, delayMs);
    watch.timer.unref();
  }

  const nextDelay = (watch: Watch) =>
    nextReadDelayMs(
      {
        now: now(),
        lastActivityAt: watch.lastActivityAt,
        eventsLive: now() - lastEventAt < EVENTS_LIVE_FOR_MS,
        failures: watch.failures,
        retryAfterMs: watch.retryAfterMs,
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
      const eventsLive = now() - lastEventAt < EVENTS_LIVE_FOR_MS;
      const answer = await scheduler.run(() =>
        policy.read(subject, cursor, eventsLive ? { acceptStatusAgeMs: EVENTS_STATUS_AGE_MS } : {}),
      );
      watch.failures = 0;
      watch.retryAfterMs = 0;
      if (answer.refused !== null) {
        for (const stream of [...watch.streams]) end(stream, refusalEvent(answer.refused));
        return;
      }
      const messages = answer.page.messages.map(toWireMessage);
      const status = statusOf(answer.conversation);
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

  function sweep() {
    const t = now();
    for (const watch of watches.values()) {
      // Allocated only for a watch with a stream to end: the sweep visits every watch every time.
      let ending: [Stream, string][] | null = null;
      for (const stream of watch.streams) {
        const last = policy.expired(stream.subject, t)
          ? refusalEvent('session_expired')
          : t >= stream.endsAt
            ? sseEvent('reconnect', { reason: 'lifetime' } satisfies StreamReconnect)
            : null;
        if (last !== null) {
          ending ??= [];
          ending.push([stream, last]);
        } else if (t - stream.lastWriteAt >= STREAM_HEARTBEAT_MS - SWEEP_MS / 2) write(stream, HEARTBEAT);
      }
      if (ending !== null) for (const [stream, last] of ending) end(stream, last);
    }
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
      };
      let watch = watches.get(conversationId);
      if (watch === undefined) {
        const lastActivityAt = recentActivity.get(conversationId) ?? Number.NEGATIVE_INFINITY;
        watch = {
          conversationId,
          streams: new Set(),
          timer: null,
          dueAt: 0,
          reading: false,
          wakeAgain: false,
          lastActivityAt,
          failures: 0,
          retryAfterMs: 0,
        };
        watches.set(conversationId, watch);
      }
      watch.streams.add(stream);
      connections += 1;
      connectionsPerConversation.set(conversationId, (connectionsPerConversation.get(conversationId) ?? 0) + 1);
      sweeper ??= setInterval(sweep, SWEEP_MS);
      sweeper.unref();
      sink.onClose(() => gone(stream));
      // The first bytes at once: a proxy that buffers is found out by the panel's silence timer.
      write(stream, sseComment('stream open'));
      await catchUp(stream);
      const joined = watches.get(conversationId);
      if (joined !== undefined) schedule(joined, nextDelay(joined));
    },

    /** The patient wrote or asked for a person through this instance: a reply is likely, read quickly for a while. */
    activity(conversationId: string) {
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

    /** Read the conversation now, if anyone here watches it (End chat on another tab ends this one's stream). */
    wake(conversationId: string) {
      const watch = watches.get(conversationId);
      if (watch !== undefined) schedule(watch, 0);
    },

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
