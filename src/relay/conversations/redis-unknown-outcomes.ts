// Sends whose answer was lost, in Redis, so that the visitor's retry is checked against them on whichever instance it
// lands (deliver-once.ts): a hash of the body and when the attempt began, and the upstream ids already given as an
// answer. Never the text, and the conversation id only as a digest.
import { z } from 'zod';
import { isReconnecting, type RedisClient } from '../shared-state/redis-client.ts';
import { storageCauseOf, storageUnavailable } from '../shared-state/storage-error.ts';
import { bodyFingerprint } from './idempotency.ts';
import type { UnknownAttempt, UnknownOutcomeStore } from './unknown-outcomes.ts';

// A record written before `settlesBy` existed was written only after its attempt had failed: already settled.
const attemptSchema = z.object({ bodyHash: z.string(), startedAt: z.number(), settlesBy: z.number().default(0) });

export function createRedisUnknownOutcomeStore(client: RedisClient, ttlMs = 24 * 60 * 60 * 1000): UnknownOutcomeStore {
  // The key as a digest too: a create's key is what its maker presents to be answered.
  const attemptKey = (scope: string, key: string) => `pwc:lost:${bodyFingerprint(scope)}:${bodyFingerprint(key)}`;
  const claimKey = (scope: string, messageId: string) =>
    `pwc:answered:${bodyFingerprint(scope)}:${bodyFingerprint(messageId)}`;

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
      const stored = await redis(() => client.get(attemptKey(scope, key)));
      if (stored === null) return null;
      try {
        const parsed = attemptSchema.safeParse(JSON.parse(stored));
        return parsed.success ? parsed.data : null;
      } catch {
        return null;
      }
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
  };
}
