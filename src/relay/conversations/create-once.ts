// Creating the upstream conversation so that a lost answer leaves no empty conversation with the practice. The service
// may store a create and still fail to answer (a dropped connection, a timeout, a 5xx after the work); the visitor's
// retry with the same Idempotency-Key would then create a second conversation, and staff would see the first one
// empty. Each create carries a reference derived from the key (the contract's assumed `client_reference`), and an
// attempt is on record (unknown-outcomes.ts) before it goes: a create that fails without an answer looks itself up at
// once, and a retry that finds the record looks up before it creates. The service's documented search is by message
// content, which an empty conversation has none of, so it cannot find what this must find.
import { randomUUID } from 'node:crypto';
import type { UpstreamClient } from '../upstream/index.ts';
import { MAX_PAGE_SIZE } from '../upstream/contract.ts';
import { outcomeIsUnknown } from './deliver-once.ts';
import { digest } from './digest.ts';
import type { UnknownOutcomeStore } from './unknown-outcomes.ts';

export interface CreateOnceOptions {
  upstream: Pick<UpstreamClient, 'createConversation' | 'listConversations'>;
  outcomes: UnknownOutcomeStore;
  now: () => number;
  /** A create whose answer was lost, found upstream and used. */
  onRecovered?: () => void;
  /** Conversations found with the same reference beyond the one used: created twice, so left empty. */
  onLeftEmpty?: (count: number) => void;
  /**
   * How long a retry may find an earlier attempt's conversation: no longer than the create's own record answers, so
   * a key presented after that (and after End chat) never reopens the conversation it once made.
   */
  findWindowMs: number;
}

export interface CreateRequest {
  practice: string;
  /** Who asks (created-record.ts `createScope`): another visitor with the same key finds nothing of this one's. */
  requester: string;
  key: string | undefined;
  language?: string;
}

/** Kept apart from the sends' records, which are scoped by conversation. */
const recordScope = (requester: string) => `create\u0000${requester}`;

export function createCreateOnce({
  upstream,
  outcomes,
  now,
  onRecovered,
  onLeftEmpty,
  findWindowMs,
}: CreateOnceOptions) {
  async function findByReference(practice: string, reference: string): Promise<{ id: string } | null> {
    const page = await upstream.listConversations({
      practice,
      clientReference: reference,
      ordering: 'created_at',
      pageSize: MAX_PAGE_SIZE,
    });
    const [first, ...others] = page.results;
    if (first === undefined) return null;
    onRecovered?.();
    if (others.length > 0) onLeftEmpty?.(others.length);
    return first;
  }

  /**
   * The upstream conversation for this create: the one an earlier attempt with `key` made, or a new one. Without a
   * key no retry can find it again, so the reference is random and only this request looks it up.
   */
  return async function createOnce({ practice, requester, key, language }: CreateRequest): Promise<{ id: string }> {
    const reference = key === undefined ? randomUUID() : digest(`${requester}\u0000${key}`);
    if (key !== undefined) {
      const earlier = await outcomes.get(recordScope(requester), key);
      const findable = earlier !== null && now() - earlier.startedAt < findWindowMs;
      // A lookup that fails throws: never create blind while an earlier attempt may have made it.
      const found = findable ? await findByReference(practice, reference) : null;
      if (found !== null) return found;
      // Kept after a success too (until the store's expiry): what follows the create (the handle's record) may still
      // fail, and the retry must then find this conversation rather than make another.
      await outcomes.remember(recordScope(requester), key, { bodyHash: reference, startedAt: now(), settlesBy: now() });
    }
    try {
      return await upstream.createConversation({ practice, clientReference: reference, ...(language && { language }) });
    } catch (error) {
      if (!outcomeIsUnknown(error)) throw error;
      // The answer was lost, not necessarily the conversation: one look now lets the visitor's first try succeed.
      const found = await findByReference(practice, reference).catch(() => null);
      if (found !== null) return found;
      throw error;
    }
  };
}
