// The chat panel's state and what a visitor can do, as small signals with an injected transport, storage, clock and
// analytics, so tests drive it with fakes. One model per panel; dispose() stops every timer it started.
import { batch, computed, signal } from '@preact/signals';
import type { ConversationStatus } from '../../shared/wire.ts';
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
}

/** How long the typing indicator waits for a reply before it gives up. */
const TYPING_TIMEOUT_MS = 30_000;
const RETRYABLE = new Set<TransportErrorCode>(['network', 'upstream_unavailable', 'upstream_timeout', 'rate_limited', 'internal']);

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
  }

  /** The visitor message being delivered (in flight, or waiting for its retry), if any. */
  const delivering = new Set<string>();

  /**
   * Messages go out one at a time, in the order the visitor wrote them, so that a message waiting for a retry is never
   * overtaken by a later one: upstream gets the conversation in the order it was written.
   */
  function deliverNext(): void {
    if (delivering.size > 0 || disposed) return;
    const next = messages.value.find((candidate) => candidate.sender === 'visitor' && (candidate.delivery === 'sending' || candidate.delivery === 'retrying'));
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
      schedulePoll(0);
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
    if (disposed || handle === null || phase.value === 'ended') return;
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
      const { list, added } = mergePolled(messages.value, answer.messages);
      const replies = added.filter((message) => message.sender !== 'visitor');
      batch(() => {
        cursor = Math.max(cursor, answer.cursor);
        messages.value = list;
        takeStatus(answer.status, answer.status_as_of);
        if (replies.length > 0) {
          awaitingReply.value = false;
          if (announce) announcement.value = replies.at(-1) ?? null;
          if (announce && !panelOpen.value) {
            unread.value += replies.length;
            deps.onUnread(unread.value);
          }
        }
      });
      schedulePoll();
    } catch (error) {
      // An answer about a conversation the panel has already left (ended, or replaced after expiry) changes nothing.
      if (polled !== handle) return;
      if (error instanceof TransportError && error.code === 'session_expired') {
        forgetConversation();
        phase.value = 'ended';
        return;
      }
      // Resolved long enough ago that the relay no longer reads it out: nothing more will come.
      if (error instanceof TransportError && error.code === 'conversation_resolved') {
        forgetConversation();
        phase.value = 'resolved';
        return;
      }
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
          { key, id: null, sender: 'visitor', authorName: '', text: trimmed, createdAt: new Date(now()).toISOString(), delivery: 'sending', idempotencyKey: deps.newKey() },
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
        schedulePoll(0);
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
      schedulePoll(hidden ? undefined : 0);
    },

    dispose() {
      disposed = true;
      deps.clearTimer(pollTimer);
      deps.clearTimer(typingTimer);
      retryTimers.forEach((id) => deps.clearTimer(id));
      retryTimers.clear();
    },
  };
}
