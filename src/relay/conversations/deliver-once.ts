// Sending a visitor's message so that it reaches upstream once, even when an earlier attempt's answer was lost.
// Runs inside the idempotency store (one send per key at a time); the store forgets a failed send, so the visitor's
// retry comes back here with the same key.
import { UpstreamError, type Message, type UpstreamClient } from '../upstream/index.ts';
import type { UnknownOutcomeStore } from './unknown-outcomes.ts';
import { bodyFingerprint } from './idempotency.ts';

/** The relay's and upstream's clocks may differ a little; a stored message up to this much "earlier" still counts. */
export const CLOCK_SKEW_ALLOWANCE_MS = 5_000;

/**
 * Whether upstream may have stored the message although the call failed: no answer at all (dropped, timed out), an
 * unreadable answer, or a 5xx. A 4xx (including 429) is an answer that says it was not stored.
 */
export function outcomeIsUnknown(error: unknown): boolean {
  if (!(error instanceof UpstreamError)) return true;
  if (error.code === 'upstream_timeout' || error.code === 'upstream_bad_response') return true;
  return error.code === 'upstream_unavailable';
}

export interface DeliverOnceOptions {
  upstream: Pick<UpstreamClient, 'sendMessage' | 'listMessagesAfter'>;
  outcomes: UnknownOutcomeStore;
  now: () => number;
}

export function createDeliverOnce({ upstream, outcomes, now }: DeliverOnceOptions) {
  /** The visitor message with this body stored since the attempt began and not already another key's answer. */
  async function findStored(conversationId: string, attempt: { bodyHash: string; startedAt: number }): Promise<Message | null> {
    const since = attempt.startedAt - CLOCK_SKEW_ALLOWANCE_MS;
    let after = 0;
    for (;;) {
      const page = await upstream.listMessagesAfter(conversationId, after);
      for (const message of page.messages) {
        if (
          message.sender === 'visitor' &&
          Date.parse(message.created_at) >= since &&
          bodyFingerprint(message.text) === attempt.bodyHash &&
          !(await outcomes.isClaimed(conversationId, message.id))
        ) {
          return message;
        }
      }
      const last = page.messages.at(-1);
      if (!page.hasMore || last === undefined) return null;
      after = last.sequence;
    }
  }

  return async function deliverOnce(conversationId: string, key: string, text: string): Promise<Message> {
    const hash = bodyFingerprint(text);
    const earlier = await outcomes.get(conversationId, key);
    if (earlier !== null && earlier.bodyHash === hash) {
      // A read-back that fails throws, and the record stays for the next retry: never send blind after a lost answer.
      const stored = await findStored(conversationId, earlier);
      if (stored !== null) {
        await Promise.all([outcomes.forget(conversationId, key), outcomes.claim(conversationId, stored.id)]);
        return stored;
      }
    }
    const startedAt = earlier?.bodyHash === hash ? earlier.startedAt : now();
    try {
      const message = await upstream.sendMessage(conversationId, text);
      // Bookkeeping after the send: if it fails, the message was still sent, so it is answered all the same.
      await Promise.all([outcomes.forget(conversationId, key), outcomes.claim(conversationId, message.id)]).catch(() => undefined);
      return message;
    } catch (error) {
      await (outcomeIsUnknown(error) ? outcomes.remember(conversationId, key, { bodyHash: hash, startedAt }) : outcomes.forget(conversationId, key)).catch(
        () => undefined,
      );
      throw error;
    }
  };
}
