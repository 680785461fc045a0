// When the relay first saw each conversation resolved, which is when its resolved grace counts from. The service's
// `updated_at` is no clock for that: it moves with every later change (staff giving the case a subject, a write the
// relay itself makes), and a grace that counted from it could be started again. The first sighting is kept instead,
// in the shared store, so that every instance counts from the same moment and nothing written upstream afterwards can
// move it. Keyed by a digest of the upstream id, and kept only as long as the conversation's handle can be presented.
import { digest } from './digest.ts';

export interface ResolutionStore {
  /**
   * When this conversation was first seen resolved: `resolvedAt` (the time a reading gives its resolution) if no
   * instance has kept one, else the earlier of the two. Kept until `until` (ms since the epoch: the handle's expiry).
   */
  firstSeen(conversationId: string, resolvedAt: number, until: number): Promise<number>;
}

/** The key a store files a conversation under: a digest, so the store says nothing about which conversations exist. */
export const resolutionKey = (conversationId: string) => digest(conversationId);

/**
 * In memory, for one relay process (the embedded default). Expired entries are swept as new ones arrive, so the map
 * holds at most the conversations seen resolved within one handle lifetime.
 */
export function createMemoryResolutionStore(now: () => number = Date.now): ResolutionStore {
  const kept = new Map<string, { resolvedAt: number; until: number }>();
  function sweep() {
    const time = now();
    for (const [key, entry] of kept) if (entry.until <= time) kept.delete(key);
  }
  return {
    async firstSeen(conversationId, resolvedAt, until) {
      const key = resolutionKey(conversationId);
      const entry = kept.get(key);
      if (entry !== undefined && entry.until > now()) return Math.min(entry.resolvedAt, resolvedAt);
      if (kept.size > 0 && kept.size % 1024 === 0) sweep();
      kept.set(key, { resolvedAt, until });
      return resolvedAt;
    },
  };
}
