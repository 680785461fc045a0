// Live handles every instance sees, in Redis: an entry per live conversation (a digest of its id) that expires with
// its handle and is deleted by End chat. A handle whose entry is missing is refused, so when Redis loses its data
// (restart without persistence, failover, eviction) the chats open at that moment end rather than retired handles
// working again. While Redis is unreachable a check answers "live", so reads keep working (the data is still there,
// only out of reach); creating a conversation and End chat then fail as storage unavailable, and the panel retries.
import { isReconnecting, type RedisClient } from '../shared-state/redis-client.ts';
import { storageCauseOf, storageUnavailable } from '../shared-state/storage-error.ts';
import { revocationKey, type RevocationStore } from './revocations.ts';

const KEY_PREFIX = 'pwc:live:';

export function createRedisRevocationStore(client: RedisClient, onUnavailable: () => void): RevocationStore {
  const keyOf = (conversationId: string) => `${KEY_PREFIX}${revocationKey(conversationId)}`;
  return {
    async issue(conversationId, until) {
      try {
        await client.set(keyOf(conversationId), '1', 'PXAT', Math.max(Date.now() + 1, Math.ceil(until)));
      } catch {
        throw storageUnavailable(storageCauseOf(client));
      }
    },
    async revoke(conversationId) {
      try {
        await client.del(keyOf(conversationId));
      } catch {
        throw storageUnavailable(storageCauseOf(client));
      }
    },
    async isRevoked(conversationId) {
      if (isReconnecting(client)) {
        onUnavailable();
        return false;
      }
      try {
        return (await client.exists(keyOf(conversationId))) === 0;
      } catch {
        onUnavailable();
        return false;
      }
    },
  };
}
