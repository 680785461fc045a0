// Retired handles every instance sees, in Redis: an entry per retired conversation (a digest of its id) that expires
// with the handle. While Redis is unreachable a check answers "not retired", so reads keep working; End chat then
// fails with upstream_unavailable, and the panel has already forgotten the handle either way.
import { ApiError } from '../http/api-error.ts';
import { isReconnecting, type RedisClient } from '../shared-state/redis-client.ts';
import { revocationKey, type RevocationStore } from './revocations.ts';

const KEY_PREFIX = 'pwc:retired:';

export function createRedisRevocationStore(client: RedisClient, onUnavailable: () => void): RevocationStore {
  return {
    async revoke(conversationId, until) {
      try {
        await client.set(`${KEY_PREFIX}${revocationKey(conversationId)}`, '1', 'PXAT', Math.max(Date.now() + 1, Math.ceil(until)));
      } catch {
        throw new ApiError('upstream_unavailable', 2);
      }
    },
    async isRevoked(conversationId) {
      if (isReconnecting(client)) {
        onUnavailable();
        return false;
      }
      try {
        return (await client.exists(`${KEY_PREFIX}${revocationKey(conversationId)}`)) === 1;
      } catch {
        onUnavailable();
        return false;
      }
    },
  };
}
