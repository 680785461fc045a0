// The chat panel's state and what a visitor can do, as small signals with an injected transport, storage, clock and
// analytics, so tests drive it with fakes. One model per panel, composed of an outbox (the visitor's messages on their
// way out) and a follower (what the relay says, by its live stream or by polling); it keeps the conversation's
// lifecycle and the counts of replies nobody has seen yet, and dispose() stops every timer and stream they started.
import { batch, computed, signal } from '@preact/signals';
import type { ConversationStatus, WireMessage } from '../../shared/wire.ts';
import { TransportError, type TransportErrorCode } from '../transport.ts';
import type { ChatModelDependencies, ChatPhase } from './chat-model-dependencies.ts';
import { createFollower } from './follower.ts';
import { mergeIncoming, type ChatMessage } from './message-list.ts';
import { createOutbox } from './outbox.ts';

export type { ChatModelDependencies, ChatPhase } from './chat-model-dependencies.ts';

/** How long the typing indicator waits for a reply before it gives up. */
const TYPING_TIMEOUT_MS = 30_000;

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

  const follower = createFollower({
    ...deps,
    pollContext: () => ({
      msSinceVisitorSent: lastSentAt === null ? null : now() - lastSentAt,
      panelOpen: panelOpen.value,
      tabHidden: tabHidden.value,
      awaitingReply: awaitingReply.value,
    }),
    onMessages: showMessages,
    onStatus: showStatus,
    endsConversation: endedByRelay,
  });
  const outbox = createOutbox({
    ...deps,
    messages,
    ensureConversation,
    onExpired: forgetConversation,
    onResolved: () => (phase.value = 'resolved'),
    onSent: follower.expectReply,
  });

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
        follower.follow(handle);
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
    follower.stopFollowing();
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
    outbox.abandon();
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
    connectionTrouble: outbox.connectionTrouble,
    announcement,

    /** Picks up the conversation this browser tab had, if its handle is still good: history comes from the relay. */
    resume() {
      const stored = handles.load();
      if (stored === null) return;
      handle = stored.handle;
      phase.value = 'open';
      follower.follow(handle, true);
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
        outbox.enqueue(trimmed);
      });
    },

    /** The visitor's retry of a failed message: the same Idempotency-Key, so it is never sent twice. */
    retry: outbox.resend,

    async escalate(): Promise<TransportErrorCode | null> {
      try {
        const answer = await transport.escalate(await ensureConversation());
        showStatus(answer.status, answer.status_as_of);
        deps.analytics.track('escalated');
        follower.expectReply();
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
      follower.schedulePoll();
    },

    setTabHidden(hidden: boolean) {
      tabHidden.value = hidden;
      if (hidden) return follower.schedulePoll();
      if (hiddenReplies) {
        hiddenReplies = 0;
        deps.onAlert(0);
      }
      void follower.catchUp();
    },

    /** The page is back from the back-forward cache, or the network is: the stream may be dead, read and reopen. */
    reconnect: follower.restart,

    dispose() {
      follower.shutDown();
      outbox.abandon();
      deps.clearTimer(typingTimer);
    },
  };
}
