// When each conversation was first seen resolved (resolutions.ts), in Redis, so that every instance counts the grace
// from the same moment: one key per conversation, a digest of its upstream id, holding a time and nothing else, and
// expiring with the conversation's handle. Written only if absent, in one step, so two instances that see the
// resolution at once both keep the time of whichever wrote first.
import { isReconnecting, type RedisClient } from '../shared-state/redis-client.ts';
import { resolutionKey, type ResolutionStore } from './resolutions.ts';

const KEY_PREFIX = 'pwc:resolved:';

// Answers the time kept, or keeps the one given and answers it.
const KEEP_FIRST =
  "local kept = redis.call('get', KEYS[1]) if kept then return kept end redis.call('set', KEYS[1], ARGV[1], 'PXAT', ARGV[2]) return ARGV[1]";

/**
 * While Redis is out of reach the reading's own time is answered: reads go on (as the live-handle check lets them),
 * counting from the service's `updated_at` as a relay without a shared store would. The relay's own writes stay
 * harmless then too, since the policy lets none reach a resolved conversation.
 */
export function createRedisResolutionStore(client: RedisClient, onUnavailable: () => void): ResolutionStore {
  return {
    async firstSeen(conversationId, resolvedAt, until) {
      if (isReconnecting(client)) {
        onUnavailable();
        return resolvedAt;
      }
      try {
        const expiresAt = Math.max(Date.now() + 1, Math.ceil(until));
        const kept = Number(
          await client.eval(KEEP_FIRST, 1, `${KEY_PREFIX}${resolutionKey(conversationId)}`, resolvedAt, expiresAt),
        );
        return Number.isFinite(kept) ? Math.min(kept, resolvedAt) : resolvedAt;
      } catch {
        onUnavailable();
        return resolvedAt;
      }
    },
  };
}
