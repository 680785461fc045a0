import { describe, expect, it } from 'vitest';
import { randomKey } from '../../../src/frame/random-key.ts';
import { isCreateKey } from '../../../src/relay/conversations/created-record.ts';

describe('randomKey', () => {
  it('makes 128-bit keys the relay accepts as Idempotency-Keys, different every time', () => {
    const keys = new Set(Array.from({ length: 1000 }, randomKey));
    expect(keys.size).toBe(1000);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{32}$/);
    // The create's rule too, which is stricter than a send's (the key hands out a handle).
    expect([...keys].filter((key) => !isCreateKey(key))).toEqual([]);
  });

  it('does not depend on crypto.randomUUID, which insecure contexts lack', () => {
    const original = crypto.randomUUID;
    Object.defineProperty(crypto, 'randomUUID', { value: undefined, configurable: true });
    try {
      expect(randomKey()).toMatch(/^[0-9a-f]{32}$/);
    } finally {
      Object.defineProperty(crypto, 'randomUUID', { value: original, configurable: true });
    }
  });
});
