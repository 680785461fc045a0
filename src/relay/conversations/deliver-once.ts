// Sending a visitor's message so that it reaches upstream once, even when an earlier attempt's answer was lost, the
// earlier attempt was cut at a shutdown, or its instance died in the middle of it. Runs inside the idempotency store
// (one send per key at a time, on any instance); the store forgets a failed send, and a dead instance's lease runs
// out, so the visitor's retry comes back here with the same key.
//
// Every attempt is recorded (unknown-outcomes.ts) before it goes upstream and forgotten once upstream has answered.
// One rule holds for an attempt whose outcome is unknown, whatever cut it (the instance died, the call timed out, the
// stop's grace ran out, the connection dropped): a server normally finishes a request after its client hung up, so
// no retry sends again until the attempt's start plus the settle window. Until then the retry is told "still
// sending" (AttemptStillSettling, which the route answers as a timeout with Retry-After) unless a read-back finds the
// message already stored, which settles it at once; after it, the message is sent only if the read-back does not find
// it.
import { UpstreamError, type Message, type UpstreamClient } from '../upstream/index.ts';
import type { UnknownAttempt, UnknownOutcomeStore } from './unknown-outcomes.ts';
import { digest } from './digest.ts';
import { SendWindow } from './send-window.ts';
import type { RecordedWith } from './idempotency.ts';

/** The relay's and upstream's clocks may differ a little; a stored message up to this much "earlier" still counts. */
export const CLOCK_SKEW_ALLOWANCE_MS = 5_000;

/**
 * After an attempt's upstream call is aborted, how long the service may still take to store a request it had already
 * received, at the least: the settle window never ends sooner than the send window plus this.
 */
export const LANDING_ALLOWANCE_MS = 1_000;

/**
 * This attempt failed without the service saying it stored nothing: `cause` is the upstream failure, and a retry can
 * decide only after `retryAfterMs`, so the answer asks for that long rather than invite a retry that must wait.
 */
export class SendOutcomeUnknown extends Error {
  constructor(
    override readonly cause: unknown,
    readonly retryAfterMs: number,
  ) {
    super('The send failed and may still be stored upstream.');
  }
}

/** A retry came while an earlier attempt with its key may still land: answer "still sending", try again later. */
export class AttemptStillSettling extends Error {
  constructor(readonly retryAfterMs: number) {
    super('An earlier attempt with this key may still be stored upstream.');
  }
}

/**
 * Whether upstream may have stored the message although the call failed: no answer at all (dropped, timed out, cut),
 * an unreadable answer, or a 5xx. A 4xx (including 429) is an answer that says it was not stored.
 */
export function outcomeIsUnknown(error: unknown): boolean {
  if (!(error instanceof UpstreamError)) return true;
  if (error.code === 'upstream_timeout' || error.code === 'upstream_bad_response') return true;
  return error.code === 'upstream_unavailable';
}

export interface DeliverOnceOptions {
  upstream: Pick<UpstreamClient, 'sendMessage' | 'listMessagesAfter'>;
  outcomes: UnknownOutcomeStore;
  /**
   * The longest one send may take upstream (a token request and the send itself): the send is aborted then, so an
   * attempt whose instance died can be known to be over by its start plus this.
   */
  sendWindowMs: number;
  /**
   * Counted from an attempt's start: by then the service has stored it or never will (SEND_SETTLE_MS). Raised to the
   * send window plus the landing allowance when shorter, since the relay's own call may run that long.
   */
  settleWindowMs: number;
  now: () => number;
  /** A read-back of an earlier attempt: whether the message was found stored (metrics). */
  onReadBack?: (found: boolean) => void;
}

export function createDeliverOnce({
  upstream,
  outcomes,
  sendWindowMs,
  settleWindowMs,
  now,
  onReadBack,
}: DeliverOnceOptions) {
  const settleMs = Math.max(settleWindowMs, sendWindowMs + LANDING_ALLOWANCE_MS);
  /** The visitor message with this body stored since the attempt began and not already another key's answer. */
  async function findStored(
    conversationId: string,
    attempt: { bodyHash: string; startedAt: number },
  ): Promise<Message | null> {
    const since = attempt.startedAt - CLOCK_SKEW_ALLOWANCE_MS;
    let after = 0;
    for (;;) {
      const page = await upstream.listMessagesAfter(conversationId, after);
      for (const message of page.messages) {
        if (
          message.sender === 'visitor' &&
          Date.parse(message.created_at) >= since &&
          digest(message.text) === attempt.bodyHash &&
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

  /** The send, aborted at the window's end so that its record's `settlesBy` holds whatever upstream does. */
  async function sendWithin(conversationId: string, text: string): Promise<Message> {
    const window = new SendWindow(sendWindowMs);
    try {
      return await upstream.sendMessage(conversationId, text, { signal: window });
    } finally {
      window.close();
    }
  }

  const attemptFrom = (hash: string): UnknownAttempt => ({
    bodyHash: hash,
    startedAt: now(),
    settlesBy: now() + settleMs,
  });

  /**
   * `hash`: the text's fingerprint, when the caller has it already (the idempotency store's). `recorded`: the
   * idempotency store kept `fresh` (attemptRecord's) in the step that took the key, and found `earlier` there; it also
   * marks the send answered in the step that keeps its result, so neither is done here.
   */
  async function deliverOnce(
    conversationId: string,
    key: string,
    text: string,
    hash = digest(text),
    recorded?: { fresh: UnknownAttempt; earlier: UnknownAttempt | null },
  ): Promise<Message> {
    // Recorded before it goes: if this instance dies during the send, the retry on another one finds this record.
    // A store that cannot record refuses (the panel retries), rather than send with no trace. Most sends find no
    // record and keep theirs in the same step; one that finds a record decides on it first.
    const fresh = recorded?.fresh ?? attemptFrom(hash);
    const record =
      recorded === undefined ? await outcomes.rememberUnlessKept(conversationId, key, fresh) : recorded.earlier;
    const earlier = record !== null && record.bodyHash === hash ? record : null;
    if (earlier !== null) {
      // The earlier attempt's owner is gone (its answer was lost, it was cut, or its instance died). A message found
      // stored settles it at once, whenever that is: nothing will be sent again. Only "not stored" must wait until
      // the attempt can no longer land, since until then the service may still store it. A read-back that fails
      // throws, and the record stays for the next retry: never send blind.
      const wait = earlier.settlesBy - now();
      const stored = await findStored(conversationId, earlier).catch((error: unknown) => {
        // Within the window the retry is "still sending" either way: the read-back's failure changes nothing.
        if (wait > 0) throw new AttemptStillSettling(wait);
        throw error;
      });
      onReadBack?.(stored !== null);
      if (stored !== null) {
        await outcomes.answered(conversationId, key, stored.id);
        return stored;
      }
      const left = earlier.settlesBy - now();
      if (left > 0) throw new AttemptStillSettling(left);
    }
    // `startedAt` stays the first attempt's, so the read-back looks far enough back; `settlesBy` is this attempt's.
    const attempt =
      record === null ? fresh : { bodyHash: hash, startedAt: earlier?.startedAt ?? now(), settlesBy: now() + settleMs };
    if (attempt !== fresh) await outcomes.remember(conversationId, key, attempt);
    let message: Message;
    try {
      message = await sendWithin(conversationId, text);
    } catch (error) {
      // Upstream said it did not store it: nothing to read back. Otherwise the record stays as it is: the service may
      // still be storing the message after the relay stopped waiting, so the retry waits out the whole window.
      if (!outcomeIsUnknown(error)) {
        await outcomes.forget(conversationId, key).catch(() => undefined);
        throw error;
      }
      throw new SendOutcomeUnknown(error, Math.max(0, attempt.settlesBy - now()));
    }
    // Bookkeeping after the send: if it fails, the message was still sent, so it is answered all the same.
    if (recorded === undefined) await outcomes.answered(conversationId, key, message.id).catch(() => undefined);
    return message;
  }

  /**
   * The send of `text` with `key` in the idempotency store's steps: `record` is its attempt as a shared store keeps
   * it (undefined in memory), `send` the delivery, handed what the store found.
   */
  function stepsOf(conversationId: string, key: string, text: string) {
    let fresh: UnknownAttempt | undefined;
    return {
      record(hash: string) {
        fresh = attemptFrom(hash);
        return outcomes.sharedRecords?.(conversationId, key, fresh);
      },
      send(hash: string, recorded?: RecordedWith<UnknownAttempt>) {
        return deliverOnce(
          conversationId,
          key,
          text,
          hash,
          recorded === undefined || fresh === undefined ? undefined : { fresh, earlier: recorded.earlier },
        );
      },
    };
  }

  return Object.assign(deliverOnce, { stepsOf });
}
