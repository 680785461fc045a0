// The live streams of one relay instance, and one upstream watch per conversation that they share: however many tabs
// a patient has open, the service is read for that conversation as often as for one, at the cadence of cadence.ts,
// through one scheduler that bounds the reads in flight. A watch starts with its first stream and stops with its
// last. The service's events (upstream-events.ts) and the patient's own sends wake a watch at once.
import type { StreamReconnect, StreamStatus, WireMessage } from '../../shared/wire.ts';
import { STREAM_HEARTBEAT_MS } from '../../shared/wire.ts';
import type { ConversationReader } from '../conversations/conversation-reader.ts';
import { asOf, toWireMessage } from '../conversations/wire-message.ts';
import { UpstreamError } from '../upstream/index.ts';
import { EVENTS_STATUS_AGE_MS, FAST_FOR_MS, FAST_MS, nextReadDelayMs } from './cadence.ts';
import type { ReadScheduler } from './read-scheduler.ts';
import { sseComment, sseEvent } from './sse.ts';
import type { StreamSink } from './stream-sink.ts';

export interface LiveHubOptions {
  read: ConversationReader;
  scheduler: ReadScheduler;
  /** A conversation whose handle End chat retired (checked at every read, so another tab's End chat ends this one). */
  isRevoked(conversationId: string): Promise<boolean>;
  /** How long a stream lives before it asks the panel to reconnect (jittered ±20 %), so load spreads after deploys. */
  lifetimeMs: number;
  /** After a resolution, how long the history stays readable (the poll's rule). */
  resolvedReadGraceMs: number;
  maxStreams: number;
  maxStreamsPerConversation: number;
  now?: () => number;
  random?: () => number;
}

interface Stream {
  sink: StreamSink;
  /** The newest sequence this stream has delivered. */
  cursor: number;
  status: string | null;
  statusAsOf: number;
  endsAt: number;
  /** When the handle stops working. */
  expiresAt: number;
  lastWriteAt: number;
}

interface Watch {
  conversationId: string;
  streams: Set<Stream>;
  /** The newest sequence the watch has read. */
  cursor: number;
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
/** How often streams are checked for heartbeats, lifetimes and expired handles. */
const SWEEP_MS = 5000;

export function createLiveHub(options: LiveHubOptions) {
  const { read, scheduler, now = Date.now, random = Math.random } = options;
  const watches = new Map<string, Watch>();
  /**
   * When the patient last wrote, for conversations nobody watches here yet: the panel opens its stream just before its
   * first send, and the send may still arrive first. Kept FAST_FOR_MS, oldest first.
   */
  const recentActivity = new Map<string, number>();
  let streamCount = 0;
  let lastEventAt = Number.NEGATIVE_INFINITY;
  let sweeper: NodeJS.Timeout | null = null;

  const write = (stream: Stream, text: string | Uint8Array) => {
    stream.sink.write(text);
    stream.lastWriteAt = now();
  };

  function end(watch: Watch, stream: Stream, last?: string) {
    if (!watch.streams.delete(stream)) return;
    streamCount -= 1;
    if (last !== undefined) stream.sink.write(last);
    stream.sink.end();
    if (watch.streams.size === 0) {
      if (watch.timer !== null) clearTimeout(watch.timer);
      watches.delete(watch.conversationId);
    }
    if (streamCount === 0 && sweeper !== null) {
      clearInterval(sweeper);
      sweeper = null;
    }
  }

  function deliver(stream: Stream, messages: readonly WireMessage[], status: StreamStatus | null) {
    for (const message of messages) {
      if (message.sequence <= stream.cursor) continue;
      write(stream, sseEvent('message', message, message.sequence));
      stream.cursor = message.sequence;
    }
    // The panel keeps the newest status by `status_as_of`; a change is sent once, never an older reading.
    if (status !== null && status.status !== stream.status && status.status_as_of >= stream.statusAsOf) {
      write(stream, sseEvent('status', status));
      stream.status = status.status;
      stream.statusAsOf = status.status_as_of;
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

  async function tick(watch: Watch) {
    if (watch.reading) {
      watch.wakeAgain = true;
      return;
    }
    watch.reading = true;
    let more = false;
    try {
      if (await options.isRevoked(watch.conversationId)) {
        endAll(watch, sseEvent('error', { error: { code: 'session_expired', message: 'The conversation has expired; start a new one.' } }));
        return;
      }
      const eventsLive = now() - lastEventAt < EVENTS_LIVE_FOR_MS;
      const { page, conversation } = await scheduler.run(() =>
        read(watch.conversationId, watch.cursor, eventsLive ? { acceptStatusAgeMs: EVENTS_STATUS_AGE_MS } : {}),
      );
      watch.failures = 0;
      watch.retryAfterMs = 0;
      const messages = page.messages.map(toWireMessage);
      watch.cursor = Math.max(watch.cursor, messages.at(-1)?.sequence ?? watch.cursor);
      const status: StreamStatus = { status: conversation.status, status_as_of: asOf(conversation.updatedAt) };
      for (const stream of watch.streams) deliver(stream, messages, status);
      if (conversation.status === 'resolved' && now() - conversation.updatedAt > options.resolvedReadGraceMs) {
        endAll(watch, sseEvent('error', { error: { code: 'conversation_resolved', message: 'The conversation has ended; start a new one.' } }));
        return;
      }
      more = page.hasMore;
    } catch (error) {
      // The streams stay open (their heartbeats go on); the watch backs off, and honours a 429's Retry-After.
      watch.failures += 1;
      watch.retryAfterMs = error instanceof UpstreamError && error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : 0;
    } finally {
      watch.reading = false;
    }
    const again = more || watch.wakeAgain;
    watch.wakeAgain = false;
    schedule(
      watch,
      again
        ? 0
        : nextReadDelayMs(
            { now: now(), lastActivityAt: watch.lastActivityAt, eventsLive: now() - lastEventAt < EVENTS_LIVE_FOR_MS, failures: watch.failures, retryAfterMs: watch.retryAfterMs },
            random,
          ),
    );
  }

  function endAll(watch: Watch, last: string) {
    for (const stream of [...watch.streams]) end(watch, stream, last);
  }

  function sweep() {
    const t = now();
    for (const watch of [...watches.values()]) {
      for (const stream of [...watch.streams]) {
        if (t >= stream.expiresAt) end(watch, stream, sseEvent('error', { error: { code: 'session_expired', message: 'The conversation has expired; start a new one.' } }));
        else if (t >= stream.endsAt) end(watch, stream, sseEvent('reconnect', { reason: 'lifetime' } satisfies StreamReconnect));
        else if (t - stream.lastWriteAt >= STREAM_HEARTBEAT_MS - SWEEP_MS / 2) write(stream, HEARTBEAT);
      }
    }
  }

  return {
    get streams() {
      return streamCount;
    },
    get watches() {
      return watches.size;
    },

    /** Whether one more stream may open for this conversation (checked before the 200). */
    refusal(conversationId: string): OpenRefusal | null {
      if (streamCount >= options.maxStreams) return 'too_many_streams';
      if ((watches.get(conversationId)?.streams.size ?? 0) >= options.maxStreamsPerConversation) return 'too_many_for_conversation';
      return null;
    },

    /**
     * A new stream: its catch-up after `after` from a read of its own (a panel coming back after a gap), then the
     * conversation's shared watch.
     */
    async open(conversationId: string, after: number, expiresAt: number, sink: StreamSink) {
      const t = now();
      const stream: Stream = {
        sink,
        cursor: after,
        status: null,
        statusAsOf: 0,
        endsAt: t + Math.round(options.lifetimeMs * (0.8 + 0.4 * random())),
        expiresAt,
        lastWriteAt: t,
      };
      let watch = watches.get(conversationId);
      if (watch === undefined) {
        const lastActivityAt = recentActivity.get(conversationId) ?? Number.NEGATIVE_INFINITY;
        watch = { conversationId, streams: new Set(), cursor: after, timer: null, dueAt: 0, reading: false, wakeAgain: false, lastActivityAt, failures: 0, retryAfterMs: 0 };
        watches.set(conversationId, watch);
      }
      watch.streams.add(stream);
      streamCount += 1;
      sweeper ??= setInterval(sweep, SWEEP_MS);
      sweeper.unref();
      const joined = watch;
      sink.onClose(() => end(joined, stream));
      // The first bytes at once: a proxy that buffers is found out by the panel's silence timer.
      write(stream, sseComment('stream open'));
      try {
        const { page, conversation } = await scheduler.run(() => read(conversationId, after));
        const messages = page.messages.map(toWireMessage);
        if (!joined.streams.has(stream)) return;
        deliver(stream, messages, { status: conversation.status, status_as_of: asOf(conversation.updatedAt) });
        joined.cursor = Math.max(joined.cursor, stream.cursor);
        if (page.hasMore) schedule(joined, 0);
      } catch {
        // The watch's own reads will catch up; the panel also reads what it missed after any gap.
      }
      schedule(joined, nextReadDelayMs({ now: now(), lastActivityAt: joined.lastActivityAt, eventsLive: now() - lastEventAt < EVENTS_LIVE_FOR_MS, failures: 0, retryAfterMs: 0 }, random));
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
      for (const watch of [...watches.values()]) endAll(watch, sseEvent('reconnect', { reason } satisfies StreamReconnect));
    },
  };
}

export type LiveHub = ReturnType<typeof createLiveHub>;
