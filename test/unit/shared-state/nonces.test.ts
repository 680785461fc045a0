// The nonces every sealed text takes its IV from: each the length asked, random, and never handed out twice, across
// batches too, and never changed after it was handed out (a later batch is a fresh buffer).
import { describe, expect, it } from 'vitest';
import { createNonceSource, NONCE_BATCH_BYTES } from '../../../src/relay/shared-state/nonces.ts';
import { openText, purposeKey, sealText } from '../../../src/relay/shared-state/sealing.ts';

describe('nonces', () => {
  it('hands out distinct nonces of the length asked, across many batches, and never changes one given out', () => {
    const nonce = createNonceSource(64);
    const given = Array.from({ length: 1000 }, () => nonce(12));
    const copies = given.map((bytes) => Buffer.from(bytes).toString('hex'));
    expect(given.every((bytes) => bytes.length === 12)).toBe(true);
    expect(new Set(copies).size).toBe(given.length);
    for (let i = 0; i < 100; i++) nonce(12);
    expect(given.map((bytes) => bytes.toString('hex'))).toEqual(copies);
  });

  it('draws a nonce longer than a batch on its own', () => {
    expect(createNonceSource(16)(32)).toHaveLength(32);
    expect(createNonceSource()(NONCE_BATCH_BYTES + 1)).toHaveLength(NONCE_BATCH_BYTES + 1);
  });

  it('gives every sealed text an IV of its own', () => {
    const key = purposeKey(new Uint8Array(32).fill(7), 'test');
    const sealed = Array.from({ length: 2000 }, () => sealText(key, 'same text'));
    const ivs = sealed.map((text) => Buffer.from(text, 'base64url').subarray(0, 12).toString('hex'));
    expect(new Set(ivs).size).toBe(sealed.length);
    expect(sealed.every((text) => openText(key, text) === 'same text')).toBe(true);
  });
});
