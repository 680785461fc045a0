// Creating the upstream conversation so that a lost answer leaves no empty conversation with the practice. The service
// may store a create and still fail to answer (a dropped connection, a timeout, a 5xx after the work); the visitor's
// retry with the same Idempotency-Key would then create a second conversation, and staff would see the first one
// empty. Each create carries a reference derived from the key (the contract's assumed `client_reference`), and an
// attempt is on record (unknown-outcomes.ts) before it goes: a create that fails without an answer looks itself up at
// once, and a retry that finds the record looks up before it creates. The service's documented search is by message
// content, which an empty conversation has none of, so it cannot find what this must find.
//
// What a look-up finds is used only on proof that it is this create's (lost-create-proof.ts), and only where the
// service is known to apply the filter (reference-lookup-check.ts). Otherwise the create is "unconfirmed": a
// conversation may exist for it, so none is created blind either, and the visitor is asked to come back when a retry
// with the key can be decided, that is when the key's window is over and a retry creates afresh.
import { randomUUID } from 'node:crypto';
import type { UpstreamClient } from '../upstream/index.ts';
import { MAX_PAGE_SIZE } from '../upstream/contract/index.ts';
import { outcomeIsUnknown } from './deliver-once.ts';
import { digest } from './digest.ts';
import { judgeLookUp, type UnprovenReason } from './lost-create-proof.ts';
import type { ReferenceLookUpCheck } from './reference-lookup-check.ts';
import type { UnknownOutcomeStore } from './unknown-outcomes.ts';

/** Why a lost create was neither adopted nor made again: an unproven look-up, or no look-up for its practice. */
export type UnconfirmedReason = UnprovenReason | 'lookup_off';

/**
 * A create whose answer was lost, and whose conversation (if the service stored it) cannot be told apart from others:
 * nothing was adopted, nothing created. `retryAfterMs`: when a retry with the same key can be decided (its window is
 * over); undefined without a key, whose retry is a create of its own.
 */
export class CreateUnconfirmed extends Error {
  constructor(
    readonly reason: UnconfirmedReason,
    readonly retryAfterMs: number | undefined,
  ) {
    super('A create whose answer was lost cannot be shown to be this one; nothing was adopted or created.');
  }
}

export interface CreateOnceOptions {
  upstream: Pick<UpstreamClient, 'createConversation' | 'listConversations'>;
  outcomes: UnknownOutcomeStore;
  /** Whether a practice's lost creates may be looked up at all. */
  lookUpCheck: ReferenceLookUpCheck;
  now: () => number;
  /** A create whose answer was lost, found upstream, proven this create's and used. */
  onRecovered?: () => void;
  /**
   * Conversations found with this create's reference right after its own create was lost, more than one: created
   * twice, none used, so all left empty. Told by the request whose create made the last of them, so once.
   */
  onLeftEmpty?: (count: number) => void;
  /** A lost create answered unconfirmed, and why. */
  onUnconfirmed?: (reason: UnconfirmedReason) => void;
  /**
   * How long a retry may find an earlier attempt's conversation, from the first attempt's start: no longer than the
   * create's own record answers, so a key presented after that (and after End chat) never reopens the conversation
   * it once made.
   */
  findWindowMs: number;
}

export interface CreateRequest {
  practice: string;
  /** Who asks (created-record.ts `createScope`): another visitor with the same key finds nothing of this one's. */
  requester: string;
  key: string | undefined;
  language?: string;
  /**
   * Called before a create that is this key's first (or one without a key), and only then; throws to refuse it (a
   * quota). A retry after a lost answer is not charged again: its first attempt was, and a retry refused before its
   * look-up would leave the conversation that attempt made empty upstream, never found again.
   */
  beforeFirstCreate?: () => Promise<void>;
}

/** Kept apart from the sends' records, which are scoped by conversation. */
const recordScope = (requester: string) => `create\u0000${requester}`;

export function createCreateOnce({
  upstream,
  outcomes,
  lookUpCheck,
  now,
  onRecovered,
  onLeftEmpty,
  onUnconfirmed,
  findWindowMs,
}: CreateOnceOptions) {
  function unconfirmed(reason: UnconfirmedReason, decidableAt: number | undefined): CreateUnconfirmed {
    onUnconfirmed?.(reason);
    return new CreateUnconfirmed(reason, decidableAt === undefined ? undefined : Math.max(0, decidableAt - now()));
  }

  /**
   * The conversation an attempt that began at `startedAt` made, proven so; null when the service has none with the
   * reference. Throws CreateUnconfirmed when it cannot be told, and the upstream error when the look-up fails.
   */
  async function lookUp(
    lost: { practice: string; reference: string; startedAt: number; decidableAt: number | undefined },
    afterOwnCreate: boolean,
  ): Promise<{ id: string } | null> {
    const { practice, reference, startedAt, decidableAt } = lost;
    if (!(await lookUpCheck.usable(practice))) throw unconfirmed('lookup_off', decidableAt);
    const page = await upstream.listConversations({
      practice,
      clientReference: reference,
      ordering: 'created_at',
      pageSize: MAX_PAGE_SIZE,
    });
    const verdict = judgeLookUp(page.results, reference, startedAt);
    if (verdict.kind === 'none') return null;
    if (verdict.kind === 'proven') {
      onRecovered?.();
      return verdict.conversation;
    }
    if (verdict.reason === 'reference_not_echoed') lookUpCheck.markUnusable(practice);
    if (verdict.reason === 'several_found' && afterOwnCreate) onLeftEmpty?.(verdict.count);
    throw unconfirmed(verdict.reason, decidableAt);
  }

  /**
   * The upstream conversation for this create: the one an earlier attempt with `key` made, or a new one. Without a
   * key no retry can find it again, so the reference is random and only this request looks it up.
   */
  return async function createOnce({
    practice,
    requester,
    key,
    language,
    beforeFirstCreate,
  }: CreateRequest): Promise<{ id: string }> {
    // Checked beside a practice's first create (and again when the verdict is old), not only once a create is lost,
    // so that the operator hears of a service that ignores the filter early. Its failure waits for the next use.
    lookUpCheck.usable(practice).catch(() => {});
    const reference = key === undefined ? randomUUID() : digest(`${requester}\u0000${key}`);
    let startedAt = now();
    let earlierMayHaveLanded = false;
    if (key === undefined) await beforeFirstCreate?.();
    else {
      const earlier = await outcomes.get(recordScope(requester), key);
      if (earlier !== null && now() - earlier.startedAt < findWindowMs) {
        // Throws when the look-up fails or cannot prove: never create blind while an earlier attempt may have landed.
        const lost = {
          practice,
          reference,
          startedAt: earlier.startedAt,
          decidableAt: earlier.startedAt + findWindowMs,
        };
        const found = await lookUp(lost, false);
        if (found !== null) return found;
        // Every attempt's conversation was created after the first one began, and the window counts from it.
        startedAt = earlier.startedAt;
        earlierMayHaveLanded = true;
      }
      if (!earlierMayHaveLanded) await beforeFirstCreate?.();
      // Kept after a success too (until the store's expiry): what follows the create (the handle's record) may still
      // fail, and the retry must then find this conversation rather than make another.
      await outcomes.remember(recordScope(requester), key, { bodyHash: reference, startedAt, settlesBy: now() });
    }
    try {
      return await upstream.createConversation({ practice, clientReference: reference, ...(language && { language }) });
    } catch (error) {
      if (!outcomeIsUnknown(error)) {
        // The service answered that it stored nothing: a retry has nothing to look up (unless an earlier attempt may
        // have landed), so it is not held up where look-ups are off.
        if (key !== undefined && !earlierMayHaveLanded)
          await outcomes.forget(recordScope(requester), key).catch(() => {});
        throw error;
      }
      // The answer was lost, not necessarily the conversation: one look now lets the visitor's first try succeed.
      const decidableAt = key === undefined ? undefined : startedAt + findWindowMs;
      let found: { id: string } | null = null;
      try {
        found = await lookUp({ practice, reference, startedAt, decidableAt }, true);
      } catch (lookUpError) {
        if (lookUpError instanceof CreateUnconfirmed) throw lookUpError;
      }
      if (found !== null) return found;
      throw error;
    }
  };
}
