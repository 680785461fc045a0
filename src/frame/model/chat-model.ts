// The chat panel's state and what a visitor can do, as small signals with an injected transport, storage, clock and
// analytics, so tests drive it with fakes. One model per panel; dispose() stops every timer and stream it started.
// Three jobs share its state, in this order below: the conversation's lifecycle (opening, status, ending), following
// it (the relay's live stream, one per panel, kept open while the panel is closed or the tab hidden; after any gap
// one read of what was missed; where streaming does not work, polling at poll-cadence.ts's cadence and the stream
// tried again later), and the outbox (the visitor's messages, one at a time and in order, each with its own
// Idempotency-Key, retried while retrying can help). They stay one closure because the panel's size budget is
// counted in bytes on the wire, and factories handing each other their methods cost more of it than they save here.
import { batch, computed, signal } from '@preact/signals';
import { STREAM_SILENCE_LIMIT_MS, type ConversationStatus, type WireMessage } from '../../shared/wire.ts';
import { TransportError, type TransportErrorCode } from '../transport.ts';
import { MAX_AUTOMATIC_ATTEMPTS, retryDelayMs } from './backoff.ts';
import type { ChatModelDependencies, ChatPhase } from './chat-model-dependencies.ts';
import { confirmSent, mergeIncoming, updateMessage, type ChatMessage } from './message-list.ts';
import { nextPollDelayMs } from './poll-cadence.ts';

export type { ChatModelDependencies, ChatPhase } from './chat-model-dependencies.ts';

/** How long the typing indicator waits for a reply before it gives up. */
const TYPING_TIMEOUT_MS = 30_000;
/** After streaming failed (silence, a refusal, failures in a row), how long the panel polls before trying it again. */
export const STREAM_RETRY_MS = 3 * 60_000;
/** Streams in a row that end without a word (the connection drops) before the panel falls back to polling. */
export const STREAM_ATTEMPTS = 3;
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
  /** The latest bot or agent message, for the live region: announced once, never the history. */
  const announcement = signal<ChatMessage | null>(null);
  const typing = computed(() => awaitingReply.value && phase.value !== 'resolved' && phase.value !== 'ended');
  /** Who answers since the hand-off: the last team member who wrote, '' before one has; null while the bot does. */
  const agentName = computed(() => {
    if (phase.value !== 'escalated') return null;
    let name = '';
    for (const message of messages.value) if (message.sender === 'agent') name = message.authorName;
    return name;
  });

  let handle: string | null = null;
  let creating: Promise<string> | null = null;
  /** The Idempotency-Key of the conversation being opened: its retries reuse it, so the relay opens it only once. */
  let createKey: string | null = null;
  /** The `status_as_of` of the status shown: an answer carrying an older reading does not undo a newer one. */
  let statusAsOf = -1;
  let lastSentAt: number | null = null;
  /** Replies nobody has seen yet, for the loader: while the panel was closed, and while the tab was hidden. */
  let unread = 0;
  let hiddenReplies = 0;
  let typingTimer: unknown = null;
  let disposed = false;

  // Following the conversation.
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

  function closeStream() {
    openStream = 0;
    stopStream();
    deps.clearTimer(silenceTimer);
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
    deps.clearTimer(streamRetryTimer);
    streamRetryTimer = deps.setTimer(
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
    deps.clearTimer(streamRetryTimer);
    if (disposed || handle === null) return;
    deps.clearTimer(pollTimer);
    const id = ++streamsOpened;
    openStream = id;
    // No byte for this long, not even a heartbeat: a proxy holds the stream back, or the connection is dead.
    const restartSilenceTimer = () => {
      deps.clearTimer(silenceTimer);
      silenceTimer = deps.setTimer(fallBackToPolling, STREAM_SILENCE_LIMIT_MS);
    };
    restartSilenceTimer();
    stopStream = transport.events!(handle, cursor, (event) => {
      if (id !== openStream) return;
      restartSilenceTimer();
      if (event.type === 'message' || event.type === 'status') streamFailures = 0;
      if (event.type === 'message') {
        cursor = Math.max(cursor, event.data.sequence);
        showMessages([event.data], true);
      }
      if (event.type === 'status') showStatus(event.data.status, event.data.status_as_of);
      if (event.type === 'reconnect' || event.type === 'error') closeStream();
      if (event.type === 'reconnect') catchUp();
      if (event.type !== 'error' || endedByRelay(event.data)) return;
      // A dropped connection (a relay restarting) is tried again soon; anything else means streaming does not work
      // here.
      if (event.data.code === 'network' && ++streamFailures < STREAM_ATTEMPTS) {
        streamRetryTimer = deps.setTimer(catchUp, retryDelayMs(streamFailures, undefined, deps.random));
      } else fallBackToPolling(event.data.retryAfterMs);
    });
  }

  function schedulePoll(delay?: number | null) {
    deps.clearTimer(pollTimer);
    if (disposed || handle === null || openStream) return;
    delay ??= nextPollDelayMs({
      msSinceVisitorSent: lastSentAt === null ? null : now() - lastSentAt,
      panelOpen: panelOpen.value,
      tabHidden: tabHidden.value,
      awaitingReply: awaitingReply.value,
    });
    if (delay !== null) pollTimer = deps.setTimer(catchUp, delay);
  }

  /**
   * Reads what was missed once, then keeps following (a new stream if none is open); `announce` is false for a
   * resumed conversation's history.
   */
  async function catchUp(announce = true): Promise<void> {
    const asked = handle;
    if (disposed || asked === null) return;
    try {
      const answer = await transport.messagesAfter(asked, cursor);
      if (asked !== handle) return;
      pollFailures = 0;
      batch(() => {
        cursor = Math.max(cursor, answer.cursor, ...answer.messages.map((message) => message.sequence));
        showMessages(answer.messages, announce);
        showStatus(answer.status, answer.status_as_of);
      });
      keepFollowing();
    } catch (error) {
      // An answer about a conversation the panel has already left (ended, or replaced after expiry) changes nothing.
      if (asked !== handle || endedByRelay(error)) return;
      pollFailures += 1;
      const retryAfter = error instanceof TransportError ? error.retryAfterMs : undefined;
      schedulePoll(retryDelayMs(Math.min(pollFailures, 5), retryAfter, deps.random));
    }
  }

  /** Stops following: no stream, no timers, nothing heard yet; the next conversation starts afresh. */
  function stopFollowing() {
    cursor = 0;
    deps.clearTimer(pollTimer);
    closeStream();
    deps.clearTimer(streamRetryTimer);
    live = !!transport.events;
    streamFailures = 0;
  }

  /** The visitor wrote (or asked for a person): a reply may come soon, so listen, or poll at once. */
  function expectReply() {
    if (live) keepFollowing();
    else schedulePoll(0);
  }

  // The outbox.
  /** A message is waiting for an automatic retry: the panel says the connection is in trouble. */
  const connectionTrouble = signal(false);
  /** The key of the message being delivered (in flight, or waiting for its retry), if any: one at a time. */
  let delivering: string | null = null;
  let retryTimer: unknown = null;

  /**
   * Messages go out one at a time, in the order the visitor wrote them, so that a message waiting for a retry is never
   * overtaken by a later one: upstream gets the conversation in the order it was written.
   */
  function sendNextWaiting(): void {
    if (delivering !== null) return;
    const next = messages.value.find(
      (candidate) =>
        candidate.sender === 'visitor' && (candidate.delivery === 'sending' || candidate.delivery === 'retrying'),
    );
    if (next === undefined) return;
    delivering = next.key;
    void attemptDelivery(next.key, 1);
  }

  function finishDelivery(key: string): void {
    // An attempt that outlived the conversation it was for (cleared meanwhile) neither releases nor starts another.
    if (delivering !== key) return;
    delivering = null;
    sendNextWaiting();
  }

  async function attemptDelivery(key: string, attempt: number): Promise<void> {
    const message = messages.value.find((candidate) => candidate.key === key);
    if (!message || message.delivery === 'sent') return finishDelivery(key);
    try {
      const sent = await transport.sendMessage(await ensureConversation(), message.text, key);
      batch(() => {
        messages.value = confirmSent(messages.value, key, sent);
        connectionTrouble.value = false;
      });
      expectReply();
      finishDelivery(key);
    } catch (error) {
      // The conversation was left (or the panel closed down) while this attempt was on its way: nothing to retry.
      if (delivering !== key) return;
      const code = error instanceof TransportError ? error.code : 'network';
      if (code === 'session_expired' && attempt < MAX_AUTOMATIC_ATTEMPTS) {
        // The handle expired: this message starts a new conversation.
        forgetConversation();
        return attemptDelivery(key, attempt + 1);
      }
      if (code === 'conversation_resolved') {
        phase.value = 'resolved';
        messages.value = updateMessage(messages.value, key, { delivery: 'failed' });
        return finishDelivery(key);
      }
      if (RETRYABLE.has(code) && attempt < MAX_AUTOMATIC_ATTEMPTS) {
        batch(() => {
          messages.value = updateMessage(messages.value, key, { delivery: 'retrying' });
          connectionTrouble.value = true;
        });
        const retryAfter = error instanceof TransportError ? error.retryAfterMs : undefined;
        retryTimer = deps.setTimer(
          () => void attemptDelivery(key, attempt + 1),
          retryDelayMs(attempt, retryAfter, deps.random),
        );
        return;
      }
      messages.value = updateMessage(messages.value, key, { delivery: 'failed' });
      finishDelivery(key);
    }
  }

  /** The conversation was left, or the panel is disposed of: the message being delivered, its retry and notice go. */
  function clearDelivery() {
    delivering = null;
    deps.clearTimer(retryTimer);
    connectionTrouble.value = false;
  }

  // The conversation's lifecycle.
  async function ensureConversation(): Promise<string> {
    if (handle !== null) return handle;
    // One conversation however many messages are sent before it exists.
    if (creating) return creating;
    createKey ??= deps.newKey();
    creating = transport
      .createConversation(deps.clientId, createKey)
      .then((created) => {
        createKey = null;
        handle = created.conversation;
        handles.save({ handle, expiresAt: Date.parse(created.expires_at) });
        if (phase.value === 'new' || phase.value === 'ended') phase.value = 'open';
        // Listening before the first message goes out, so that the relay reads quickly for its reply.
        keepFollowing();
        return handle;
      })
      .finally(() => {
        creating = null;
      });
    return creating;
  }

  /** Shows a status the relay answered with, unless the panel already shows a newer one (wire.ts, status_as_of). */
  function showStatus(status: ConversationStatus, asOf: number): void {
    if (asOf < statusAsOf || phase.value === 'ended') return;
    statusAsOf = asOf;
    phase.value = status;
  }

  function forgetConversation() {
    handle = null;
    statusAsOf = -1;
    handles.clear();
    stopFollowing();
  }

  /** A refusal that ends the conversation here, from a read or the stream alike; answers whether it was one. */
  function endedByRelay(error: unknown): boolean {
    const code = error instanceof TransportError && error.code;
    // Resolved long enough ago that the relay no longer reads it out: nothing more will come.
    if (code !== 'session_expired' && code !== 'conversation_resolved') return false;
    forgetConversation();
    phase.value = code === 'session_expired' ? 'ended' : 'resolved';
    return true;
  }

  /** Shows messages from the relay, and counts the replies nobody has seen yet; `announce` is false for history. */
  function showMessages(incoming: readonly WireMessage[], announce: boolean): void {
    const { list, added } = mergeIncoming(messages.value, incoming);
    const replies = added.filter((message) => message.sender !== 'visitor');
    batch(() => {
      messages.value = list;
      if (replies.length > 0) {
        awaitingReply.value = false;
        if (!announce) return;
        announcement.value = replies.at(-1)!;
        if (!panelOpen.value) {
          unread += replies.length;
          deps.onUnread(unread);
        }
        if (tabHidden.value) {
          hiddenReplies += replies.length;
          deps.onAlert(hiddenReplies);
        }
      }
    });
  }

  /** Leaves the conversation, here only: the panel shows none. */
  function clearConversation(next: ChatPhase) {
    forgetConversation();
    clearDelivery();
    batch(() => {
      messages.value = [];
      phase.value = next;
    });
  }

  return {
    messages,
    phase,
    typing,
    agentName,
    connectionTrouble,
    announcement,

    /** Picks up the conversation this browser tab had, if its handle is still good: history comes from the relay. */
    resume() {
      const stored = handles.load();
      if (stored === null) return;
      handle = stored.handle;
      phase.value = 'open';
      void catchUp(false);
    },

    send(text: string) {
      const trimmed = text.trim();
      if (trimmed === '' || phase.value === 'resolved') return;
      batch(() => {
        awaitingReply.value = true;
        if (phase.value === 'ended') phase.value = 'new';
        lastSentAt = now();
        deps.clearTimer(typingTimer);
        typingTimer = deps.setTimer(() => (awaitingReply.value = false), TYPING_TIMEOUT_MS);
        deps.analytics.track('message_sent');
        messages.value = [
          ...messages.value,
          {
            key: deps.newKey(),
            id: null,
            sequence: null,
            sender: 'visitor',
            authorName: '',
            text: trimmed,
            createdAt: new Date(now()).toISOString(),
            delivery: 'sending',
          },
        ];
        sendNextWaiting();
      });
    },

    /** The visitor's retry of a failed message: the same Idempotency-Key, so it is never sent twice. */
    retry(key: string) {
      messages.value = updateMessage(messages.value, key, { delivery: 'sending' });
      sendNextWaiting();
    },

    async escalate(): Promise<TransportErrorCode | null> {
      try {
        const answer = await transport.escalate(await ensureConversation());
        showStatus(answer.status, answer.status_as_of);
        deps.analytics.track('escalated');
        expectReply();
        return null;
      } catch (error) {
        return error instanceof TransportError ? error.code : 'network';
      }
    },

    /** Forgets the conversation in this browser; the panel offers a new one. */
    endChat() {
      // Best effort: the relay retires the handle; if that fails, the handle still expires by itself and is gone here.
      if (handle !== null) transport.endConversation(handle).catch(() => undefined);
      batch(() => {
        clearConversation('ended');
        awaitingReply.value = false;
        announcement.value = null;
      });
      deps.analytics.track('chat_ended');
    },

    startNewChat() {
      clearConversation('new');
    },

    setPanelOpen(open: boolean) {
      if (open === panelOpen.value) return;
      panelOpen.value = open;
      if (open) {
        deps.analytics.track('chat_opened');
        unread = 0;
        deps.onUnread(0);
      }
      schedulePoll();
    },

    setTabHidden(hidden: boolean) {
      tabHidden.value = hidden;
      if (hidden) return schedulePoll();
      if (hiddenReplies) {
        hiddenReplies = 0;
        deps.onAlert(0);
      }
      void catchUp();
    },

    /** The page is back from the back-forward cache, or the network is: the stream may be dead, read and reopen. */
    reconnect() {
      closeStream();
      void catchUp();
    },

    dispose() {
      disposed = true;
      stopFollowing();
      clearDelivery();
      deps.clearTimer(typingTimer);
    },
  };
}
