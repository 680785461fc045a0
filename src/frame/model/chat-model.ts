// The chat panel's state and what a visitor can do, as small signals with an injected transport, storage, clock and
// analytics, so tests drive it with fakes. One model per panel, composed of the conversation's handle (its one keeper),
// an outbox (the visitor's messages on their way out) and a follower (what the relay says, by its live stream or by
// polling); it keeps the conversation's lifecycle and the counts of replies nobody has seen yet, and dispose() stops
// every timer and stream they started.
import { batch, computed, signal } from '@preact/signals';
import type { ConversationStatus, WireMessage } from '../../shared/wire.ts';
import { TransportError, type TransportErrorCode } from '../transport.ts';
import type { ChatModelDependencies, ChatPhase } from './chat-model-dependencies.ts';
import { createConversationHandle } from './conversation-handle.ts';
import { createFollower } from './follower.ts';
import { mergeIncoming, type ChatMessage } from './message-list.ts';
import { createOutbox } from './outbox.ts';

export type { ChatModelDependencies, ChatPhase } from './chat-model-dependencies.ts';

/** How long the typing indicator waits for a reply before it gives up. */
const TYPING_TIMEOUT_MS = 30_000;

export type ChatModel = ReturnType<typeof createChatModel>;

export function createChatModel(deps: ChatModelDependencies) {
  const { transport, now } = deps;
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

  /** The `status_as_of` of the status shown: an answer carrying an older reading does not undo a newer one. */
  let statusAsOf = -1;
  let lastSentAt: number | null = null;
  /** Replies nobody has seen yet, for the loader: while the panel was closed, and while the tab was hidden. */
  let unread = 0;
  let hiddenReplies = 0;
  let typingTimer: unknown = null;

  const conversation = createConversationHandle({
    ...deps,
    onOpened(resumed) {
      if (resumed || phase.value === 'new' || phase.value === 'ended') phase.value = 'open';
      // Listening before the first message goes out, so that the relay reads quickly for its reply; a resumed
      // conversation's history is read first, unannounced.
      follower.follow(resumed);
    },
    onForgotten() {
      statusAsOf = -1;
      follower.stopFollowing();
    },
  });
  const follower = createFollower({
    ...deps,
    held: conversation.held,
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
    ensureConversation: conversation.ensure,
    onExpired: conversation.forget,
    onResolved: () => (phase.value = 'resolved'),
    onSent: follower.expectReply,
  });

  /** Shows a status the relay answered with, unless the panel already shows a newer one (wire.ts, status_as_of). */
  function showStatus(status: ConversationStatus, asOf: number): void {
    if (asOf < statusAsOf || phase.value === 'ended') return;
    statusAsOf = asOf;
    phase.value = status;
  }

  /** A refusal that ends the conversation here, from a read or the stream alike; answers whether it was one. */
  function endedByRelay(error: unknown): boolean {
    const code = error instanceof TransportError && error.code;
    // Resolved long enough ago that the relay no longer reads it out: nothing more will come.
    if (code !== 'session_expired' && code !== 'conversation_resolved') return false;
    conversation.forget();
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

  /** The conversation was left (its handle already forgotten): the panel shows none. */
  function clearConversation(next: ChatPhase) {
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
    resume: conversation.resume,

    /** The patient picked a language: the service answers in it from now on. */
    setLanguage: conversation.setLanguage,

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
        const answer = await transport.escalate(await conversation.ensure());
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
      conversation.end();
      batch(() => {
        clearConversation('ended');
        awaitingReply.value = false;
        announcement.value = null;
      });
      deps.analytics.track('chat_ended');
    },

    startNewChat() {
      conversation.forget();
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
