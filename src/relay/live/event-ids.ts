// Which upstream event ids this relay has accepted, for ten minutes (twice the signature's window): a replayed event,
// or the service's own retry of one, wakes nothing. In memory for one instance; in Redis for several, so a replay
// sent to another instance is refused too (redis-events.ts).

export interface EventIdStore {
  /** True the first time an id is seen within the window. */
  firstSeen(id: string): Promise<boolean>;
}

export const EVENT_ID_TTL_MS = 10 * 60_000;

export function createMemoryEventIdStore({ now = Date.now, maxEntries = 100_000 } = {}): EventIdStore {
  const seen = new Map<string, number>();
  return {
    async firstSeen(id) {
      const t = now();
      // Insertion order is expiry order: drop the expired from the front.
      for (const [oldId, expiresAt] of seen) {
        if (expiresAt > t && seen.size < maxEntries) break;
        seen.delete(oldId);
      }
      if (seen.has(id)) return false;
      seen.set(id, t + EVENT_ID_TTL_MS);
      return true;
    },
  };
}
