// The context keys' HKDF, written as two HMACs for speed, must give exactly the bytes Node's own HKDF gives, or a
// record sealed by one derivation would not open under the other.
import { hkdfSync } from 'node:crypto';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { hkdfSha256 } from '../../../src/relay/shared-state/sealing.ts';

it("gives hkdfSync's 32 bytes for any key, salt and info", () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ minLength: 0, maxLength: 64 }),
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      fc.string({ unit: 'grapheme', maxLength: 80 }),
      (key, salt, info) => {
        const expected = Buffer.from(hkdfSync('sha256', key, salt, info, 32));
        expect(hkdfSha256(key, salt, info).equals(expected)).toBe(true);
      },
    ),
    { numRuns: 300 },
  );
});
