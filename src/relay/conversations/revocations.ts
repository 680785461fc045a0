// Handles retired before their expiry: End chat retires the visitor's handle, so a copy of it (in a proxy's log, a
// shared computer's history) no longer reads or writes the conversation. Handles are sealed and stateless, so on
// their own they would work until they expire.
//
// Two ways to keep that list sit behind this interface. The memory store (below) lists the retired conversations: a
// restart forgets them, and keeps the open chats. The Redis store (redis-revocations.ts) lists the live ones instead,
// from creation to retirement, so that Redis losing its data (a restart without persistence, a failover, an eviction)
// ends the chats open at that moment rather than opening retired ones again: it fails closed. Keyed by a hash of the
// upstream conversation id (one handle per conversation), never the handle itself.
import { digest } from './digest.ts';

export interface RevocationStore {
  /** A new conversation's handle, live until `until` (ms since the epoch, its expiry). */
  issue(conversationId: string, until: number): Promise<void>;
  /** Retires every handle of this conversation until `until` (ms since the epoch, the handle's own expiry). */
  revoke(conversationId: string, until: number): Promise<void>;
  isRevoked(conversationId: string): Promise<boolean>;
}

/** The key a store files a conversation under: a digest, so the list says nothing about which conversations exist. */
export const revocationKey = (conversationId: string) => digest(conversationId);

/**
 * In memory, for one relay process (the embedded default): retirements last as long as the process, so a handle that
 * End chat retired works again after a restart with the same HANDLE_SECRET (docs/known-gaps.md). With several
 * instances, each must see every revocation, and across restarts too: use the Redis store behind this interface.
 * Expired entries are swept as new ones arrive; the number of entries is bounded by how many conversations the quotas
 * let visitors create within a handle's lifetime.
 */
export function createMemoryRevocationStore(now: () => number = Date.now): RevocationStore {
  const retired = new Map<string, number>();
  function sweep() {
    const time = now();
    for (const [key, until] of retired) if (until <= time) retired.delete(key);
  }
  return {
    // Every handle the relay seals is live until retired: nothing to note at creation.
    async issue() {},
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
