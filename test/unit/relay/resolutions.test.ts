// The memory kind of the store of first sightings (resolutions.ts), which a single relay uses: the first time is kept,
// an earlier one wins, and each is forgotten once its handle has expired.
import { describe, expect, it } from 'vitest';
import { createMemoryResolutionStore } from '../../../src/relay/conversations/resolutions.ts';

describe('first sightings of a resolution, in memory', () => {
  it('keeps the first time: a later reading (a moved updated_at) counts from it, an earlier one from itself', async () => {
    const store = createMemoryResolutionStore(() => 10_000);
    expect(await store.firstSeen('conversation-1', 1_000, 60_000)).toBe(1_000);
    expect(await store.firstSeen('conversation-1', 9_000, 60_000)).toBe(1_000);
    expect(await store.firstSeen('conversation-1', 500, 60_000)).toBe(500);
    expect(await store.firstSeen('conversation-2', 9_000, 60_000)).toBe(9_000);
  });

  it('forgets a sighting once the handle it was kept for has expired', async () => {
    let time = 10_000;
    const store = createMemoryResolutionStore(() => time);
    expect(await store.firstSeen('conversation-1', 1_000, 20_000)).toBe(1_000);
    time = 20_000;
    expect(await store.firstSeen('conversation-1', 19_000, 90_000)).toBe(19_000);
  });
});
