// What the relay remembers of a created conversation, to answer a retried create (same Idempotency-Key) with the same
// handle on any instance instead of opening a second, empty conversation upstream. The handle is sealed, so a store
// that keeps it learns neither the upstream id nor anything else; it is kept only as long as a panel retries.
import { z } from 'zod';
import type { CreatedConversation } from '../../shared/wire.ts';

export const createdRecordSchema: z.ZodType<CreatedConversation> = z.object({
  conversation: z.string(),
  expires_at: z.string(),
});

/** Far longer than a panel's automatic retries of a create (a minute or two), far shorter than a handle's life. */
export const CREATED_RECORD_TTL_MS = 15 * 60 * 1000;

/** The Redis key prefix of creation records, apart from message sends'. */
export const CREATE_KEY_PREFIX = 'pwc:create:';
