// Which conversation a look-up by `client_reference` found for a create whose answer was lost, if the answer proves
// it. The service documents neither the field nor the filter, and a service that ignores a filter it does not know
// (as Django REST Framework does) answers with the practice's conversations, someone else's first: the first result is
// never taken because it came first. A conversation is this attempt's only when the service echoes the very reference
// in its record, it is the only one that does, every result does (the filter was applied), and it was created after
// the attempt began.
import type { Conversation } from '../upstream/index.ts';
import { CLOCK_SKEW_ALLOWANCE_MS } from './deliver-once.ts';

/** Why a look-up's answer does not prove which conversation is this create's. */
export type UnprovenReason =
  /** A result without this reference: the service ignored the filter, or does not echo the field. */
  | 'reference_not_echoed'
  /** More than one conversation carries it: none can be told to be the one the visitor was answered about. */
  | 'several_found'
  /** Created before the attempt began (beyond the clock allowance), or with no readable `created_at`. */
  | 'not_after_attempt';

export type LookUpVerdict =
  | { kind: 'proven'; conversation: { id: string } }
  | { kind: 'none' }
  | { kind: 'unproven'; reason: UnprovenReason; count: number };

/**
 * The verdict on a look-up's results for `reference`, for an attempt that began at `startedAt` (ms, the relay's
 * clock). `created_at` is the service's clock: a record up to CLOCK_SKEW_ALLOWANCE_MS "before" the start still
 * counts, so a service whose clock runs a little behind the relay's is not refused; one further behind is refused
 * (never adopted), which fails safe.
 */
export function judgeLookUp(results: readonly Conversation[], reference: string, startedAt: number): LookUpVerdict {
  if (results.length === 0) return { kind: 'none' };
  if (results.some((conversation) => conversation.client_reference !== reference))
    return { kind: 'unproven', reason: 'reference_not_echoed', count: results.length };
  if (results.length > 1) return { kind: 'unproven', reason: 'several_found', count: results.length };
  const [only] = results as [Conversation];
  const createdAt = only.created_at === undefined ? Number.NaN : Date.parse(only.created_at);
  if (!(createdAt >= startedAt - CLOCK_SKEW_ALLOWANCE_MS))
    return { kind: 'unproven', reason: 'not_after_attempt', count: 1 };
  return { kind: 'proven', conversation: { id: only.id } };
}
