// The key a stored record is sealed under is HKDF-SHA256 (RFC 5869) of the relay's secret and the request's
// Idempotency-Key, salted with its scope: the same bytes Node's hkdfSync gives, so a record an instance sealed before
// still opens on every instance after, and a record sealed now opens on one that still derives with hkdfSync.
import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { createRecordSealer, hkdfSha256 } from '../../../src/relay/conversations/record-seal.ts';

const viaNode = (secret: Uint8Array, suffix: string, salt: string, info: string) =>
  Buffer.from(hkdfSync('sha256', Buffer.concat([Buffer.from(secret), Buffer.from(suffix)]), salt, info, 32));

it('derives the bytes hkdfSync derives, for any secret, key, scope and purpose (the empty ones too)', () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ maxLength: 64 }),
      fc.string({ unit: 'grapheme', maxLength: 130 }),
      fc.string({ unit: 'grapheme', maxLength: 200 }),
      fc.string({ maxLength: 40 }),
      (secret, suffix, salt, info) =>
        hkdfSha256(secret, suffix, salt, info).equals(viaNode(secret, suffix, salt, info)),
    ),
    { numRuns: 200 },
  );
});

it('opens a record sealed under the key hkdfSync derives, and only with its scope and key', () => {
  const secret = randomBytes(32);
  const scope = 'conversation-7f3a';
  const idempotencyKey = 'send-key-0001';
  const key = viaNode(secret, `\u0000${idempotencyKey}`, scope, 'practice-webchat/sent-record/v1');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const sealed = Buffer.concat([iv, cipher.update('{"id":"msg_1"}', 'utf8'), cipher.final(), cipher.getAuthTag()]);
  const sealer = createRecordSealer(secret, 'sent-record');
  expect(sealer.open(scope, idempotencyKey, sealed.toString('base64url'))).toBe('{"id":"msg_1"}');
  expect(sealer.open('conversation-other', idempotencyKey, sealed.toString('base64url'))).toBeNull();
  expect(sealer.open(scope, 'send-key-0002', sealed.toString('base64url'))).toBeNull();
});
