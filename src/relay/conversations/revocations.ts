// Handles retired before their expiry: End chat retires the visitor's handle, so a copy of it (in a proxy's log, a
// shared computer's history) no longer reads or writes the conversation. Handles are sealed and stateless, so the
// relay keeps a list of retired conversations until their handles would have expired anyway. Keyed by a hash of the
// upstream conversation id (one handle per conversation), never the id or the handle itself.
import { digest } from './digest.ts';

export interface RevocationStore {
  /** Retires every handle of this conversation until `until` (ms since the epoch, the handle's own expiry). */
  revoke(conversationId: string, until: number): Promise<void>;
  isRevoked(conversationId: string): Promise<boolean>;
}

/** The key a store files a conversation under: a digest, so the list says nothing about which conversations exist. */
export const revocationKey = (conversationId: string) => digest(conversationId);

/**
 * In memory, for one relay process (the embedded default). With several instances, each must see every revocation:
 * use the Redis store behind this same interface. Expired entries are swept as new ones arrive; the number of entries
 * is bounded by how many conversations the quotas let visitors create within a handle's lifetime.
 */
export function createMemoryRevocationStore(now: () => number = Date.now): RevocationStore {
  const retired = new Map<string, number>();
  function sweep() {
    const time = now();
    for (const [key, until] of retired) if (until <= time) retired.delete(key);
  }
  return {
    async revoke(conversationId, until) {
      if (retired.size > 0 && retired.size % 1024 === 0) sweep();
      retired.set(revocationKey(conversationId), until);
    },
    async isRevoked(conversationId) {
      // Nothing retired (the usual state of a relay between End chats): no digest to compute.
      if (retired.size === 0) return false;
      const until = retired.get(revocationKey(conversationId));
      return until !== undefined && until > now();
    },
  };
}
