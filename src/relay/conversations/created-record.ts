// What the relay remembers of a created conversation, to answer a retried create (same Idempotency-Key) with the same
// handle on any instance instead of opening a second, empty conversation upstream. The key opens that conversation
// for as long as the record is kept, so it is treated as a secret: it must be unguessable, the record answers only the
// visitor who made it (redis-idempotency.ts keeps it under a digest of the key, sealed under a key derived from it).
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LONG_BASE64URL = /^[A-Za-z0-9_-]{22,128}$/;
/**
 * A random key of these shapes uses fewer different characters all but never (about 1 in 10^12); `aaaa…` or
 * `ababab…` do, and would be shared by everyone who thought of them.
 */
const MIN_DISTINCT_CHARACTERS = 6;

export const CREATE_KEY_RULE = 'a UUID or 22–128 base64url characters (at least 128 random bits)';

/** Whether a create's Idempotency-Key can carry 128 random bits: a UUID, or 22 or more base64url characters. */
export function isCreateKey(key: string): boolean {
  if (!UUID.test(key) && !LONG_BASE64URL.test(key)) return false;
  return new Set(key.replaceAll('-', '')).size >= MIN_DISTINCT_CHARACTERS;
}

/**
 * The record's scope: the configuration and the requester (its quota key: the address, or the IPv6 network). The same
 * key from anyone else is another record, so a key seen elsewhere (a log, a shoulder) never hands out the handle.
 */
export function createScope(clientId: string, requester: string): string {
  return `${clientId}\u0000${requester}`;
}
