// The chat panel's state and what a visitor can do, as small signals with an injected transport, storage, clock and
// analytics, so tests drive it with fakes. One model per panel; dispose() stops every timer and stream it started.
// Replies arrive by the relay's live stream, one per panel, opened once a conversation exists and kept open while the
// panel is closed or the tab hidden; after any gap the panel reads what it missed once. Where streaming does not work
// (a proxy that buffers, repeated failures, a refusal) it polls as it always did, and tries the stream again later.
import { batch, computed, signal } from '@preact/signals';
import { STREAM_SILENCE_LIMIT_MS, type ConversationStatus, type WireMessage } from '../../shared/wire.ts';
import type { Analytics } from '../analytics.ts';
import type { HandleStorage } from '../session/handle-storage.ts';
import { TransportError, type Transport, type TransportErrorCode } from '../transport.ts';
import { MAX_AUTOMATIC_ATTEMPTS, retryDelayMs } from './backoff.ts';
import { confirmSent, mergePolled, updateMessage, type ChatMessage } from './message-list.ts';
import { nextPollDelayMs } from './poll-cadence.ts';

/** Where the conversation stands, as the panel shows it. */
export type ChatPhase = 'new' | ConversationStatus | 'ended';

export interface ChatModelDependencies {
  transport: Transport;
  clientId: string;
  handles: HandleStorage;
  analytics: Analytics;
  now: () => number;
  random: () => number;
  newKey: () => string;
  setTimer: (run: () => void, ms: number) => unknown;
  clearTimer: (timer: unknown) => void;
  /** Bot and agent messages that arrived while the panel was closed (the loader shows the count). */
  onUnread: (count: number) => void;
  /** Bot and agent messages that arrived while the tab was hidden (the loader's title prefix); 0 once it is visible. */
  onAlert: (count: number) => void;
}

/** After streaming failed (silence, a refusal, failures in a row), how long the panel polls before trying it again. */
export const STREAM_RETRY_MS = 3 * 60_000;
/** Streams in a row that end without a word (the connection drops) before the panel falls back to polling. */
export const STREAM_ATTEMPTS = 3;

/** How long the typing indicator waits for a reply before it gives up. */
const TYPING_TIMEOUT_MS = 30_000;
const RETRYABLE = new Set<TransportErrorCode>([
  'network',
  'upstream_unavailable',
  'upstream_timeout',
  'rate_limited',
  'internal',
]);

export type ChatModel = ReturnType<typeof createChatModel>;

export function createChatModel(deps: ChatModelDependencies) {
  const { transport, handles, now } = deps;
  const messages = signal<ChatMessage[]>([]);
  const phase = signal<ChatPhase>('new');
  const panelOpen = signal(false);
  const tabHidden = signal(false);
  const awaitingReply = signal(false);
  const connectionTrouble = signal(false);
  const unread = signal(0);
  /** The latest bot or agent message, for the live region: announced once, never the history. */
  const announcement = signal<ChatMessage | null>(null);
  const typing = computed(() => awaitingReply.value && phase.value !== 'resolved' && phase.value !== 'ended');

  let handle: string | null = null;
  let creating: Promise<string> | null = null;
  /** The Idempotency-Key of the conversation being opened: its retries reuse it, so the relay opens it only once. */
  let createKey: string | null = null;
  let cursor = 0;
  /** The `status_as_of` of the status shown: an answer carrying an older reading does not undo a newer one. */
  let statusAsOf = -1;
  let lastSentAt: number | null = null;
  let hiddenReplies = 0;
  /** Whether the panel follows the conversation by the live stream; false while it polls instead. */
  let live = !!transport.events;
  let streamFailures = 0;
  /** The open stream's number (0: none): events of a stream the panel has left are ignored. */
  let stream = 0;
  let streams = 0;
  let stopStream = () => {};
  let silenceTimer: unknown = null;
  let streamTimer: unknown = null;
  let pollTimer: unknown = null;
  let typingTimer: unknown = null;
  let disposed = false;
  const retryTimers = new Set<unknown>();

  function timer(run: () => void, ms: number): unknown {
    const id = deps.setTimer(() => {
      retryTimers.delete(id);
      run();
    }, ms);
    retryTimers.add(id);
    return id;
  }

  async function ensureConversation(): Promise<string> {
    if (handle !== null) return handle;
    // One conversation however many messages are sent before it exists.
    creating ??= transport
      .createConversation(deps.clientId, (createKey ??= deps.newKey()))
      .then((created) => {
        createKey = null;
        handle = created.conversation;
        handles.save({ handle, expiresAt: Date.parse(created.expires_at) });
        if (phase.value === 'new' || phase.value === 'ended') phase.value = 'open';
        // Listening before the first message goes out, so that the relay reads quickly for its reply.
        follow();
        return handle;
      })
      .finally(() => {
        creating = null;
      });
    return creating;
  }

  /** Shows a status the relay answered with, unless the panel already shows a newer one (wire.ts, status_as_of). */
  function takeStatus(status: ConversationStatus, asOf: number): void {
    if (asOf < statusAsOf || phase.value === 'ended') return;
    statusAsOf = asOf;
    phase.value = status;
  }

  function forgetConversation() {
    handle = null;
    cursor = 0;
    statusAsOf = -1;
    handles.clear();
    deps.clearTimer(pollTimer);
    closeStream();
    deps.clearTimer(streamTimer);
    live = !!transport.events;
    streamFailures = 0;
  }

  /** A refusal that ends the conversation here, from a read or the stream alike; answers whether it was one. */
  function refused(error: unknown): boolean {
    const code = error instanceof TransportError && error.code;
    // Resolved long enough ago that the relay no longer reads it out: nothing more will come.
    if (code !== 'session_expired' && code !== 'conversation_resolved') return false;
    forgetConversation();
    phase.value = code === 'session_expired' ? 'ended' : 'resolved';
    return true;
  }

  /** Shows messages from the relay; `announce` is false for history (a resumed conversation). */
  function take(incoming: readonly WireMessage[], announce: boolean): void {
    const { list, added } = mergePolled(messages.value, incoming);
    const replies = added.filter((message) => message.sender !== 'visitor');
    batch(() => {
      cursor = Math.max(cursor, ...incoming.map((message) => message.sequence));
      messages.value = list;
      if (replies.length > 0) {
        awaitingReply.value = false;
        if (!announce) return;
        announcement.value = replies.at(-1)!;
        if (!panelOpen.value) deps.onUnread((unread.value += replies.length));
        if (tabHidden.value) deps.onAlert((hiddenReplies += replies.length));
      }
    });
  }

  function closeStream() {
    stream = 0;
    stopStream();
    deps.clearTimer(silenceTimer);
  }

  /** After a read: keep following the conversation, by its stream where that works, else by polling. */
  function follow() {
    if (!live) schedulePoll();
    else if (!stream) listen();
  }

  /** Reads what was missed once, then follows (a new stream if none is open). */
  function catchUp() {
    void poll(true);
  }

  function fallBack(retryAfterMs = 0) {
    closeStream();
    live = false;
    streamFailures = 0;
    deps.clearTimer(streamTimer);
    streamTimer = deps.setTimer(
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
    deps.clearTimer(streamTimer);
    if (disposed || handle === null) return;
    deps.clearTimer(pollTimer);
    const id = (stream = ++streams);
    // No byte for this long, not even a heartbeat: a proxy holds the stream back, or the connection is dead.
    const hush = () => {
      deps.clearTimer(silenceTimer);
      silenceTimer = deps.setTimer(fallBack, STREAM_SILENCE_LIMIT_MS);
    };
    hush();
    stopStream = transport.events!(handle, cursor, (event) => {
      if (id !== stream) return;
      hush();
      if (event.type === 'message' || event.type === 'status') streamFailures = 0;
      if (event.type === 'message') take([event.data], true);
      if (event.type === 'status') takeStatus(event.data.status, event.data.status_as_of);
      if (event.type === 'reconnect' || event.type === 'error') closeStream();
      if (event.type === 'reconnect') catchUp();
      if (event.type !== 'error' || refused(event.data)) return;
      // A dropped connection (a relay restarting) is tried again soon; anything else means streaming does not work here.
      if (event.data.code === 'network' && ++streamFailures < STREAM_ATTEMPTS)
        streamTimer = deps.setTimer(catchUp, retryDelayMs(streamFailures, undefined, deps.random));
      else fallBack(event.data.retryAfterMs);
    });
  }

  /** The visitor message being delivered (in flight, or waiting for its retry), if any. */
  const delivering = new Set<string>();

  /**
   * Messages go out one at a time, in the order the visitor wrote them, so that a message waiting for a retry is never
   * overtaken by a later one: upstream gets the conversation in the order it was written.
   */
  function deliverNext(): void {
    if (delivering.size > 0 || disposed) return;
    const next = messages.value.find(
      (candidate) =>
        candidate.sender === 'visitor' && (candidate.delivery === 'sending' || candidate.delivery === 'retrying'),
    );
    if (next === undefined) return;
    delivering.add(next.key);
    void deliver(next.key, 1);
  }

  function settle(key: string): void {
    delivering.delete(key);
    deliverNext();
  }

  async function deliver(key: string, attempt: number): Promise<void> {
    const message = messages.value.find((candidate) => candidate.key === key);
    if (disposed || !message || message.delivery === 'sent') return settle(key);
    try {
      const current = await ensureConversation();
      const sent = await transport.sendMessage(current, message.text, message.idempotencyKey ?? key);
      batch(() => {
        messages.value = confirmSent(messages.value, key, sent);
        connectionTrouble.value = false;
      });
      if (live) follow();
      else schedulePoll(0);
      settle(key);
    } catch (error) {
      const code = error instanceof TransportError ? error.code : 'network';
      if (code === 'session_expired' && attempt < MAX_AUTOMATIC_ATTEMPTS) {
        // The handle expired: this message starts a new conversation.
        forgetConversation();
        return deliver(key, attempt + 1);
      }
      if (code === 'conversation_resolved') {
        phase.value = 'resolved';
        messages.value = updateMessage(messages.value, key, { delivery: 'failed' });
        return settle(key);
      }
      if (RETRYABLE.has(code) && attempt < MAX_AUTOMATIC_ATTEMPTS) {
        batch(() => {
          messages.value = updateMessage(messages.value, key, { delivery: 'retrying' });
          connectionTrouble.value = true;
        });
        const retryAfter = error instanceof TransportError ? error.retryAfterMs : undefined;
        timer(() => void deliver(key, attempt + 1), retryDelayMs(attempt, retryAfter, deps.random));
        return;
      }
      messages.value = updateMessage(messages.value, key, { delivery: 'failed' });
      settle(key);
    }
  }

  function schedulePoll(delayOverride?: number) {
    deps.clearTimer(pollTimer);
    if (disposed || handle === null || phase.value === 'ended' || stream) return;
    const delay =
      delayOverride ??
      nextPollDelayMs({
        msSinceVisitorSent: lastSentAt === null ? null : now() - lastSentAt,
        panelOpen: panelOpen.value,
        tabHidden: tabHidden.value,
        awaitingReply: awaitingReply.value,
      });
    if (delay === null) return;
    pollTimer = deps.setTimer(() => void poll(true), delay);
  }

  let pollFailures = 0;
  async function poll(announce: boolean): Promise<void> {
    if (disposed || handle === null) return;
    const polled = handle;
    try {
      const answer = await transport.messagesAfter(polled, cursor);
      if (polled !== handle) return;
      pollFailures = 0;
      batch(() => {
        cursor = Math.max(cursor, answer.cursor);
        take(answer.messages, announce);
        takeStatus(answer.status, answer.status_as_of);
      });
      follow();
    } catch (error) {
      // An answer about a conversation the panel has already left (ended, or replaced after expiry) changes nothing.
      if (polled !== handle || refused(error)) return;
      pollFailures += 1;
      const retryAfter = error instanceof TransportError ? error.retryAfterMs : undefined;
      schedulePoll(retryDelayMs(Math.min(pollFailures, 5), retryAfter, deps.random));
    }
  }

  return {
    messages,
    phase,
    panelOpen,
    typing,
    connectionTrouble,
    announcement,
    unread,

    /** Picks up the conversation this browser tab had, if its handle is still good: history comes from the relay. */
    resume() {
      const stored = handles.load();
      if (stored === null) return;
      handle = stored.handle;
      phase.value = 'open';
      void poll(false);
    },

    send(text: string) {
      const trimmed = text.trim();
      if (trimmed === '' || phase.value === 'resolved') return;
      const key = deps.newKey();
      batch(() => {
        messages.value = [
          ...messages.value,
          {
            key,
            id: null,
            sequence: null,
            sender: 'visitor',
            authorName: '',
            text: trimmed,
            createdAt: new Date(now()).toISOString(),
            delivery: 'sending',
            idempotencyKey: deps.newKey(),
          },
        ];
        awaitingReply.value = true;
        if (phase.value === 'ended') phase.value = 'new';
      });
      lastSentAt = now();
      deps.clearTimer(typingTimer);
      typingTimer = deps.setTimer(() => (awaitingReply.value = false), TYPING_TIMEOUT_MS);
      deps.analytics.track('message_sent');
      deliverNext();
    },

    /** The visitor's retry of a failed message: the same Idempotency-Key, so it is never sent twice. */
    retry(key: string) {
      messages.value = updateMessage(messages.value, key, { delivery: 'sending' });
      deliverNext();
    },

    async escalate(): Promise<TransportErrorCode | null> {
      try {
        const answer = await transport.escalate(await ensureConversation());
        takeStatus(answer.status, answer.status_as_of);
        deps.analytics.track('escalated');
        if (live) follow();
        else schedulePoll(0);
        return null;
      } catch (error) {
        return error instanceof TransportError ? error.code : 'network';
      }
    },

    /** Forgets the conversation in this browser; the panel offers a new one. */
    endChat() {
      // Best effort: the relay retires the handle; if that fails, the handle still expires by itself and is gone here.
      if (handle !== null) transport.endConversation(handle).catch(() => undefined);
      forgetConversation();
      delivering.clear();
      batch(() => {
        messages.value = [];
        phase.value = 'ended';
        awaitingReply.value = false;
        announcement.value = null;
      });
      deps.analytics.track('chat_ended');
    },

    startNewChat() {
      forgetConversation();
      delivering.clear();
      batch(() => {
        messages.value = [];
        phase.value = 'new';
      });
    },

    setPanelOpen(open: boolean) {
      if (open === panelOpen.value) return;
      panelOpen.value = open;
      if (open) {
        deps.analytics.track('chat_opened');
        unread.value = 0;
        deps.onUnread(0);
      }
      schedulePoll();
    },

    setTabHidden(hidden: boolean) {
      tabHidden.value = hidden;
      if (hidden) return schedulePoll();
      if (hiddenReplies) deps.onAlert((hiddenReplies = 0));
      catchUp();
    },

    /** The page came back from the back-forward cache, or the network came back: the stream may be dead, read and reopen. */
    reconnect() {
      closeStream();
      catchUp();
    },

    dispose() {
      disposed = true;
      closeStream();
      deps.clearTimer(streamTimer);
      deps.clearTimer(pollTimer);
      deps.clearTimer(typingTimer);
      retryTimers.forEach((id) => deps.clearTimer(id));
      retryTimers.clear();
    },
  };
}
