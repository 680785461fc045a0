import { randomBytes } from 'node:crypto';

/**
 * mulberry32: a tiny seeded PRNG. Only used where tests need to replay the same sequence (fault shares, seeded
 * calls); never for anything that must be unguessable.
 */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return function next() {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomSeed(): number {
  return randomBytes(4).readUInt32LE(0);
}

/** Opaque, unguessable identifier or secret. The prefix only helps a human tell resources apart. */
export function opaqueId(prefix: string, bytes = 12): string {
  return prefix + randomBytes(bytes).toString('base64url');
}
