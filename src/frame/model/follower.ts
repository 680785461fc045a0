// Hears what happens in one conversation at a time: by the relay's live stream, one per panel, opened once there is a
// conversation and kept open while the panel is closed or the tab hidden; after any gap it reads what it missed once.
// Where streaming does not work (a proxy that buffers, repeated failures, a refusal) it polls, at the cadence of
// poll-cadence.ts, and tries the stream again later. What it hears goes to whoever composes it.
import { batch } from '@preact/signals';
import { STREAM_SILENCE_LIMIT_MS, type ConversationStatus, type WireMessage } from '../../shared/wire.ts';
import { TransportError, type Transport } from '../transport.ts';
import { retryDelayMs } from './backoff.ts';
import { nextPollDelayMs, type PollContext } from './poll-cadence.ts';

/** After streaming failed (silence, a refusal, failures in a row), how long the panel polls before trying it again. */
export const STREAM_RETRY_MS = 3 * 60_000;
/** Streams in a row that end without a word (the connection drops) before the panel falls back to polling. */
export const STREAM_ATTEMPTS = 3;

export interface FollowerDependencies {
  transport: Pick<Transport, 'messagesAfter' | 'events'>;
  /** What decides how often to poll, as it stands now. */
  pollContext: () => PollContext;
  /** Messages from the relay; `announce` is false for history (a resumed conversation). */
  onMessages: (messages: readonly WireMessage[], announce: boolean) => void;
  onStatus: (status: ConversationStatus, statusAsOf: number) => void;
  /** A refusal (from a read or the stream) that ends the conversation here; answers whether it was one. */
  endsConversation: (error: unknown) => boolean;
  random: () => number;
  setTimer: (run: () => void, ms: number) => unknown;
  clearTimer: (timer: unknown) => void;
}

export type Follower = ReturnType<typeof createFollower>;

export function createFollower(deps: FollowerDependencies) {
  const { transport, setTimer, clearTimer } = deps;
  /** The handle of the conversation followed; null while there is none. */
  let handle: string | null = null;
  /** The sequence of the last message heard: reads and streams start after it. */
  let cursor = 0;
  /** Whether to follow by the live stream; false while polling instead. */
  let live = !!transport.events;
  let streamFailures = 0;
  let pollFailures = 0;
  /** The open stream's number (0: none): events of a stream the panel has left are ignored. */
  let openStream = 0;
  let streamsOpened = 0;
  let stopStream = () => {};
  let silenceTimer: unknown = null;
  let streamRetryTimer: unknown = null;
  let pollTimer: unknown = null;
  let disposed = false;

  function closeStream() {
    openStream = 0;
    stopStream();
    clearTimer(silenceTimer);
  }

  /** After a read: keep following the conversation, by its stream where that works, else by polling. */
  function keepFollowing() {
    if (!live) schedulePoll();
    else if (!openStream) listen();
  }

  function fallBackToPolling(retryAfterMs = 0) {
    closeStream();
    live = false;
    streamFailures = 0;
    clearTimer(streamRetryTimer);
    streamRetryTimer = setTimer(
      () => {
        live = true;
        catchUp();
      },
      Math.max(STREAM_RETRY_MS, retryAfterMs),
    );
    schedulePoll(0);
  }

  function listen() {
    closeStream();
    clearTimer(streamRetryTimer);
    if (handle === null) return;
    clearTimer(pollTimer);
    const id = ++streamsOpened;
    openStream = id;
    // No byte for this long, not even a heartbeat: a proxy holds the stream back, or the connection is dead.
    const restartSilenceTimer = () => {
      clearTimer(silenceTimer);
      silenceTimer = setTimer(fallBackToPolling, STREAM_SILENCE_LIMIT_MS);
    };
    restartSilenceTimer();
    let heard = false;
    stopStream = transport.events!(handle, cursor, (event) => {
      if (id !== openStream) return;
      restartSilenceTimer();
      if (event.type === 'message' || event.type === 'status') {
        heard = true;
        streamFailures = 0;
      }
      if (event.type === 'message') {
        cursor = Math.max(cursor, event.data.sequence);
        deps.onMessages([event.data], true);
      }
      if (event.type === 'status') deps.onStatus(event.data.status, event.data.status_as_of);
      if (event.type === 'reconnect' || event.type === 'error') closeStream();
      // The relay's new stream reads what was missed as its catch-up: a poll first would read the same gap twice. A
      // stream told to reconnect before it said anything (an instance stopping) is followed by a poll first, so a
      // relay that keeps answering so is never asked again at once.
      if (event.type === 'reconnect') (heard ? listen : catchUp)();
      if (event.type !== 'error' || deps.endsConversation(event.data)) return;
      // A dropped connection (a relay restarting) is tried again soon; anything else means streaming does not work
      // here.
      if (event.data.code === 'network' && ++streamFailures < STREAM_ATTEMPTS) {
        streamRetryTimer = setTimer(catchUp, retryDelayMs(streamFailures, undefined, deps.random));
      } else fallBackToPolling(event.data.retryAfterMs);
    });
  }

  function schedulePoll(delay?: number | null) {
    clearTimer(pollTimer);
    if (handle === null || openStream) return;
    delay ??= nextPollDelayMs(deps.pollContext());
    if (delay !== null) pollTimer = setTimer(catchUp, delay);
  }

  /**
   * Reads what was missed once, then keeps following (a new stream if none is open); `announce` is false for a
   * resumed conversation's history.
   */
  async function catchUp(announce = true): Promise<void> {
    const asked = handle;
    if (asked === null) return;
    try {
      const answer = await transport.messagesAfter(asked, cursor);
      if (asked !== handle) return;
      pollFailures = 0;
      batch(() => {
        cursor = Math.max(cursor, answer.cursor, ...answer.messages.map((message) => message.sequence));
        deps.onMessages(answer.messages, announce);
        deps.onStatus(answer.status, answer.status_as_of);
      });
      keepFollowing();
    } catch (error) {
      // An answer about a conversation the panel has already left (ended, or replaced after expiry) changes nothing.
      if (asked !== handle || deps.endsConversation(error)) return;
      pollFailures += 1;
      const retryAfter = error instanceof TransportError ? error.retryAfterMs : undefined;
      schedulePoll(retryDelayMs(Math.min(pollFailures, 5), retryAfter, deps.random));
    }
  }

  /** Stops following: no stream, no timers, nothing heard yet; the next conversation starts afresh. */
  function stopFollowing() {
    handle = null;
    cursor = 0;
    clearTimer(pollTimer);
    closeStream();
    clearTimer(streamRetryTimer);
    live = !!transport.events;
    streamFailures = 0;
  }

  return {
    /**
     * Follows this conversation: at once by its stream (or polling), or, for one resumed, after reading its history
     * unannounced.
     */
    follow(conversation: string, resumed?: boolean) {
      if (disposed) return;
      handle = conversation;
      if (resumed) void catchUp(false);
      else keepFollowing();
    },

    /** Reads what was missed (the tab is visible again), then keeps following. */
    catchUp,
    schedulePoll,

    /** The visitor wrote (or asked for a person): a reply may come soon, so listen, or poll at once. */
    expectReply() {
      if (live) keepFollowing();
      else schedulePoll(0);
    },

    /** The stream may be dead (the page back from the back-forward cache, the network back): read, then reopen. */
    restart() {
      closeStream();
      void catchUp();
    },

    stopFollowing,

    /** The panel is disposed of: stops following for good, even a conversation whose opening is still on its way. */
    shutDown() {
      disposed = true;
      stopFollowing();
    },
  };
}
