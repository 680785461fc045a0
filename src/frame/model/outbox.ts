// The visitor's messages on their way to the relay: one at a time, in the order written, each with the one
// Idempotency-Key all its attempts share, retried by itself while retrying can help, then left for the visitor's
// "Try again". The conversation itself (opening it, forgetting an expired one) belongs to whoever composes this.
import { batch, signal, type Signal } from '@preact/signals';
import { TransportError, type Transport, type TransportErrorCode } from '../transport.ts';
import { MAX_AUTOMATIC_ATTEMPTS, retryDelayMs } from './backoff.ts';
import { confirmSent, updateMessage, type ChatMessage } from './message-list.ts';

export interface OutboxDependencies {
  transport: Pick<Transport, 'sendMessage'>;
  /** The conversation as shown: the outbox adds the visitor's messages and marks how each is getting on. */
  messages: Signal<ChatMessage[]>;
  /** The conversation's handle, opened first if there is none yet. */
  ensureConversation: () => Promise<string>;
  /** The handle expired: forget it, so that the next attempt opens a new conversation. */
  onExpired: () => void;
  /** The practice resolved the conversation: it takes no more messages. */
  onResolved: () => void;
  /** A message went out: a reply may follow. */
  onSent: () => void;
  now: () => number;
  random: () => number;
  newKey: () => string;
  setTimer: (run: () => void, ms: number) => unknown;
  clearTimer: (timer: unknown) => void;
}

const RETRYABLE = new Set<TransportErrorCode>([
  'network',
  'upstream_unavailable',
  'upstream_timeout',
  'rate_limited',
  'internal',
]);

export type Outbox = ReturnType<typeof createOutbox>;

export function createOutbox(deps: OutboxDependencies) {
  const { messages, setTimer, clearTimer } = deps;
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
      const handle = await deps.ensureConversation();
      const sent = await deps.transport.sendMessage(handle, message.text, key);
      batch(() => {
        messages.value = confirmSent(messages.value, key, sent);
        connectionTrouble.value = false;
      });
      deps.onSent();
      finishDelivery(key);
    } catch (error) {
      // The conversation was left (or the panel closed down) while this attempt was on its way: nothing to retry.
      if (delivering !== key) return;
      const code = error instanceof TransportError ? error.code : 'network';
      if (code === 'session_expired' && attempt < MAX_AUTOMATIC_ATTEMPTS) {
        // The handle expired: this message starts a new conversation.
        deps.onExpired();
        return attemptDelivery(key, attempt + 1);
      }
      if (code === 'conversation_resolved') {
        deps.onResolved();
        messages.value = updateMessage(messages.value, key, { delivery: 'failed' });
        return finishDelivery(key);
      }
      if (RETRYABLE.has(code) && attempt < MAX_AUTOMATIC_ATTEMPTS) {
        batch(() => {
          messages.value = updateMessage(messages.value, key, { delivery: 'retrying' });
          connectionTrouble.value = true;
        });
        const retryAfter = error instanceof TransportError ? error.retryAfterMs : undefined;
        retryTimer = setTimer(
          () => void attemptDelivery(key, attempt + 1),
          retryDelayMs(attempt, retryAfter, deps.random),
        );
        return;
      }
      messages.value = updateMessage(messages.value, key, { delivery: 'failed' });
      finishDelivery(key);
    }
  }

  function abandon() {
    delivering = null;
    clearTimer(retryTimer);
    connectionTrouble.value = false;
  }

  return {
    connectionTrouble,

    /** Adds the visitor's message to the conversation, to go out after those written before it. */
    enqueue(text: string) {
      messages.value = [
        ...messages.value,
        {
          key: deps.newKey(),
          id: null,
          sequence: null,
          sender: 'visitor',
          authorName: '',
          text,
          createdAt: new Date(deps.now()).toISOString(),
          delivery: 'sending',
        },
      ];
      sendNextWaiting();
    },

    /** The visitor's retry of a failed message: the same Idempotency-Key, so it is never sent twice. */
    resend(key: string) {
      messages.value = updateMessage(messages.value, key, { delivery: 'sending' });
      sendNextWaiting();
    },

    /**
     * The conversation was left, or the panel is disposed of: what was being delivered is dropped, with its retry and
     * its trouble notice.
     */
    abandon,
  };
}
