// Hears what happens in the conversation open now: by the relay's live stream, one per panel, opened once there is a
// conversation and kept open while the panel is closed or the tab hidden; after any gap it reads what it missed once.
// Where streaming does not work (a proxy that buffers, repeated failures, a refusal) it polls, at the cadence of
// poll-cadence.ts, and tries the stream again later. How it follows is one value (Following): each state holds the
// stream and the timers it started, and leaving it ends them. What it hears goes to whoever composes it.
import { batch } from '@preact/signals';
import { STREAM_SILENCE_LIMIT_MS, type ConversationStatus, type WireMessage } from '../../shared/wire.ts';
import { TransportError, type Transport } from '../transport.ts';
import { retryDelayMs } from './backoff.ts';
import { nextPollDelayMs, type PollContext } from './poll-cadence.ts';

/** After streaming failed (silence, a refusal, failures in a row), how long the panel polls before trying it again. */
export const STREAM_RETRY_MS = 3 * 60_000;
/** Streams in a row that end without a word (the connection drops) before the panel falls back to polling. */
export const STREAM_ATTEMPTS = 3;

/** A timer as the injected clock hands it out. */
type Timer = unknown;

/** The live stream is open; `silence` runs out when no byte came for too long. */
interface Streaming {
  is: 'streaming';
  stop: () => void;
  silence?: Timer;
  /** Whether it carried a message or a status yet. */
  heard?: boolean;
  /** Streams in a row that dropped without a word, this one's predecessors. */
  drops: number;
}

/**
 * No stream open: the follower reads instead, `poll` being the next read (the cadence's, or a failed read's retry).
 * With `listen`, the next read that answers opens the stream again (between two streams); without it, streaming does
 * not work here (or there is no stream at all) until `reopen` tries it again.
 */
interface Polling {
  is: 'polling';
  listen: boolean;
  /** Streams in a row that dropped without a word before this gap; 0 once streaming is given up for a while. */
  drops: number;
  poll?: Timer;
  /** A dropped stream's backoff, or the wait before streaming is tried again. */
  reopen?: Timer;
}

/** How the follower follows: no conversation (idle), by its stream, by reading, or never again (stopped). */
export type Following = { is: 'idle' } | Streaming | Polling | { is: 'stopped' };

export interface FollowerDependencies {
  transport: Pick<Transport, 'messagesAfter' | 'events'>;
  /** The handle of the conversation open now, as its keeper holds it (conversation-handle.ts). */
  held: () => string | null;
  /** What decides how often to poll, as it stands now. */
  pollContext: () => PollContext;
  /** Messages from the relay; `announce` is false for history (a resumed conversation). */
  onMessages: (messages: readonly WireMessage[], announce: boolean) => void;
  onStatus: (status: ConversationStatus, statusAsOf: number) => void;
  /** A refusal (from a read or the stream) that ends the conversation here; answers whether it was one. */
  endsConversation: (error: unknown) => boolean;
  random: () => number;
  setTimer: (run: () => void, ms: number) => Timer;
  clearTimer: (timer: Timer) => void;
}

export type Follower = ReturnType<typeof createFollower>;

export function createFollower(deps: FollowerDependencies) {
  const { transport, setTimer, clearTimer } = deps;
  let state: Following = { is: 'idle' };
  /** The sequence of the last message heard: reads and streams start after it. */
  let cursor = 0;
  /** Reads in a row that failed: each waits longer before the next. */
  let readFailures = 0;

  /** Moves to `next`: what the state left had started (its stream, its timers) ends with it. */
  function enter(next: Following) {
    if (state.is === 'streaming') {
      state.stop();
      clearTimer(state.silence);
    }
    if (state.is === 'polling') {
      clearTimer(state.poll);
      clearTimer(state.reopen);
    }
    state = next;
  }

  /** Between two streams: reading until a read answers, then listening again. */
  const between = (drops: number): Polling => ({ is: 'polling', listen: true, drops });

  /** The handle of the conversation followed; null while following none. */
  const followed = () => (state.is === 'idle' || state.is === 'stopped' ? null : deps.held());

  /** After a read: keep following the conversation, by its stream where that works, else by polling. */
  function keepFollowing() {
    if (state.is !== 'polling') return;
    if (state.listen) listen(state.drops);
    else schedulePoll();
  }

  function fallBackToPolling(retryAfterMs = 0) {
    const polling: Polling = { is: 'polling', listen: false, drops: 0 };
    enter(polling);
    polling.reopen = setTimer(
      () => {
        polling.listen = true;
        void catchUp();
      },
      Math.max(STREAM_RETRY_MS, retryAfterMs),
    );
    schedulePoll(0);
  }

  function listen(drops: number) {
    const handle = followed();
    if (handle === null) return;
    // No byte for this long, not even a heartbeat: a proxy holds the stream back, or the connection is dead.
    const restartSilenceTimer = () => {
      clearTimer(stream.silence);
      stream.silence = setTimer(fallBackToPolling, STREAM_SILENCE_LIMIT_MS);
    };
    const stream: Streaming = {
      is: 'streaming',
      drops,
      stop: transport.events!(handle, cursor, (event) => {
        // Events of a stream the follower has left are ignored.
        if (state !== stream) return;
        restartSilenceTimer();
        if (event.type === 'message' || event.type === 'status') {
          stream.heard = true;
          stream.drops = 0;
        }
        if (event.type === 'message') {
          cursor = Math.max(cursor, event.data.sequence);
          deps.onMessages([event.data], true);
        }
        if (event.type === 'status') deps.onStatus(event.data.status, event.data.status_as_of);
        if (event.type !== 'reconnect' && event.type !== 'error') return;
        const gap = between(stream.drops);
        enter(gap);
        // The relay's new stream reads what was missed as its catch-up: a poll first would read the same gap twice. A
        // stream told to reconnect before it said anything (an instance stopping) is followed by a poll first, so a
        // relay that keeps answering so is never asked again at once.
        if (event.type === 'reconnect') return stream.heard ? listen(gap.drops) : void catchUp();
        if (deps.endsConversation(event.data)) return;
        // A dropped connection (a relay restarting) is tried again soon; anything else means streaming does not work
        // here.
        if (event.data.code === 'network' && ++gap.drops < STREAM_ATTEMPTS) {
          gap.reopen = setTimer(catchUp, retryDelayMs(gap.drops, undefined, deps.random));
        } else fallBackToPolling(event.data.retryAfterMs);
      }),
    };
    enter(stream);
    restartSilenceTimer();
  }

  /** Sets the next read while no stream is open: at the cadence, or after `delay` (null: none). */
  function schedulePoll(delay?: number | null) {
    if (state.is !== 'polling') return;
    clearTimer(state.poll);
    delay ??= nextPollDelayMs(deps.pollContext());
    if (delay !== null) state.poll = setTimer(catchUp, delay);
  }

  /**
   * Reads what was missed once, then keeps following (a new stream if none is open); `announce` is false for a
   * resumed conversation's history.
   */
  async function catchUp(announce = true): Promise<void> {
    const asked = followed();
    if (asked === null) return;
    try {
      const answer = await transport.messagesAfter(asked, cursor);
      if (asked !== followed()) return;
      readFailures = 0;
      batch(() => {
        cursor = Math.max(cursor, answer.cursor, ...answer.messages.map((message) => message.sequence));
        deps.onMessages(answer.messages, announce);
        deps.onStatus(answer.status, answer.status_as_of);
      });
      keepFollowing();
    } catch (error) {
      // An answer about a conversation the panel has already left (ended, or replaced after expiry) changes nothing.
      if (asked !== followed() || deps.endsConversation(error)) return;
      readFailures += 1;
      const retryAfter = error instanceof TransportError ? error.retryAfterMs : undefined;
      schedulePoll(retryDelayMs(Math.min(readFailures, 5), retryAfter, deps.random));
    }
  }

  /** Stops following: no stream, no timers, nothing heard yet; the next conversation starts afresh. */
  function stopFollowing() {
    cursor = 0;
    if (state.is !== 'stopped') enter({ is: 'idle' });
  }

  return {
    /**
     * Follows the conversation open now: at once by its stream (or polling), or, for one resumed, after reading its
     * history unannounced.
     */
    follow(resumed?: boolean) {
      if (state.is === 'stopped') return;
      enter({ is: 'polling', listen: !!transport.events, drops: 0 });
      if (resumed) void catchUp(false);
      else keepFollowing();
    },

    /** Reads what was missed (the tab is visible again), then keeps following. */
    catchUp,
    schedulePoll,

    /** The visitor wrote (or asked for a person): a reply may come soon, so listen, or poll at once. */
    expectReply() {
      if (state.is === 'polling' && !state.listen) schedulePoll(0);
      else keepFollowing();
    },

    /** The stream may be dead (the page back from the back-forward cache, the network back): read, then reopen. */
    restart() {
      if (state.is === 'streaming') enter(between(state.drops));
      void catchUp();
    },

    stopFollowing,

    /** The panel is disposed of: stops following for good, even a conversation whose opening is still on its way. */
    shutDown() {
      stopFollowing();
      enter({ is: 'stopped' });
    },
  };
}
