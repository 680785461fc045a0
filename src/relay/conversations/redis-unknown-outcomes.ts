// Sends whose answer was lost, in Redis, so that the visitor's retry is checked against them on whichever instance it
// lands (deliver-once.ts): a hash of the body and when the attempt began, and the upstream ids already given as an
// answer. Never the text, and the conversation id only as a digest.
import { z } from 'zod';
import { isReconnecting, type RedisClient } from '../shared-state/redis-client.ts';
import { storageCauseOf, storageUnavailable } from '../shared-state/storage-error.ts';
import { digest } from './digest.ts';
import type { UnknownAttempt, UnknownOutcomeStore } from './unknown-outcomes.ts';

// Keeps the attempt unless a record is there already, which it answers instead.
const SET_UNLESS_KEPT =
  "local kept = redis.call('get', KEYS[1]) if kept then return kept end redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) return false";

const attemptSchema = z.object({ bodyHash: z.string(), startedAt: z.number(), settlesBy: z.number() });

export function createRedisUnknownOutcomeStore(client: RedisClient, ttlMs = 24 * 60 * 60 * 1000): UnknownOutcomeStore {
  // The key as a digest too: a create's key is what its maker presents to be answered. `scopeDigest`: the scope's, when
  // the caller has it already (one digest of the conversation per send).
  const attemptKey = (scope: string, key: string, scopeDigest = digest(scope)) =>
    `pwc:lost:${scopeDigest}:${digest(key)}`;
  const claimKey = (scope: string, messageId: string, scopeDigest = digest(scope)) =>
    `pwc:answered:${scopeDigest}:${digest(messageId)}`;

  /** Not knowing whether an earlier attempt was lost must not turn into sending blind: refuse, and the panel retries. */
  async function redis<R>(command: () => Promise<R>): Promise<R> {
    if (isReconnecting(client)) throw storageUnavailable('redis_unreachable');
    try {
      return await command();
    } catch {
      throw storageUnavailable(storageCauseOf(client));
    }
  }

  return {
    async remember(scope, key, attempt: UnknownAttempt) {
      await redis(() => client.set(attemptKey(scope, key), JSON.stringify(attempt), 'PX', ttlMs));
    },
    async get(scope, key) {
      return parseAttempt(await redis(() => client.get(attemptKey(scope, key))));
    },
    async rememberUnlessKept(scope, key, attempt) {
      const kept = await redis(() =>
        client.eval(SET_UNLESS_KEPT, 1, attemptKey(scope, key), JSON.stringify(attempt), ttlMs),
      );
      return typeof kept === 'string' ? parseAttempt(kept) : null;
    },
    async forget(scope, key) {
      await redis(() => client.del(attemptKey(scope, key)));
    },
    async claim(scope, messageId) {
      await redis(() => client.set(claimKey(scope, messageId), '1', 'PX', ttlMs));
    },
    async isClaimed(scope, messageId) {
      return (await redis(() => client.exists(claimKey(scope, messageId)))) === 1;
    },
    sharedRecords(scope, key, attempt) {
      const scopeDigest = digest(scope);
      return {
        key: attemptKey(scope, key, scopeDigest),
        value: JSON.stringify(attempt),
        ttlMs,
        earlier: parseAttempt,
        answeredKey: (message) => claimKey(scope, message.id, scopeDigest),
      };
    },
    async answered(scope, key, messageId) {
      const both = client.multi().del(attemptKey(scope, key)).set(claimKey(scope, messageId), '1', 'PX', ttlMs);
      const results = await redis(() => both.exec());
      if (results === null || results.some(([error]) => error !== null))
        throw storageUnavailable(storageCauseOf(client));
    },
  };
}

function parseAttempt(stored: string | null): UnknownAttempt | null {
  if (stored === null) return null;
  try {
    const parsed = attemptSchema.safeParse(JSON.parse(stored));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
