// Sealing what the relay puts where others may read it (Redis keys, its pub/sub channel): AES-256-GCM, so a sealed
// text tells its reader nothing and any change to it is refused. Each purpose seals under its own key, derived from
// the relay's secret with the purpose's name, so that a text sealed for one purpose never opens for another.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync } from 'node:crypto';
import { createNonceSource } from './nonces.ts';

declare const derived: unique symbol;
/** A key made by `purposeKey` or `contextKey`, never by hand. */
export type SealingKey = Buffer & { readonly [derived]: true };

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Every text sealed in this process draws its IV here (nonces.ts). */
const nonce = createNonceSource();

/** The purpose's key; derive it once per purpose, not per text. */
export function purposeKey(secret: Uint8Array, purpose: string): SealingKey {
  return Buffer.from(hkdfSync('sha256', secret, '', `practice-webchat/${purpose}/v1`, 32)) as SealingKey;
}

/**
 * A key of the purpose's own for one context (a record's scope and Idempotency-Key), so that a text opens only for
 * the context it was sealed in. `salt` and `info` are HKDF's two inputs, kept apart so no two contexts can collide.
 */
export function contextKey(key: SealingKey, salt: string, info: string): SealingKey {
  return hkdfSha256(key, salt, info) as SealingKey;
}

const FIRST_BLOCK = Buffer.from([1]);

/**
 * HKDF-SHA256 (RFC 5869) for one 32-byte key: extract, then the expand's first block, byte for byte what
 * `hkdfSync('sha256', …, 32)` gives. A context key is derived on every record read and written, and two HMACs cost a
 * fraction of `hkdfSync`, which builds a key object and a crypto job per call.
 */
export function hkdfSha256(inputKey: Uint8Array, salt: string, info: string): Buffer {
  // An empty salt is an HMAC key of zeros, which HMAC pads an empty key to: the RFC's default.
  const pseudorandomKey = createHmac('sha256', salt).update(inputKey).digest();
  return createHmac('sha256', pseudorandomKey).update(info).update(FIRST_BLOCK).digest();
}

export function sealText(key: SealingKey, plaintext: string): string {
  const iv = nonce(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  return Buffer.concat([iv, cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]).toString(
    'base64url',
  );
}

/** The plaintext, or null when the text was not sealed under this key (or was changed since). */
export function openText(key: SealingKey, sealed: string): string | null {
  const bytes = Buffer.from(sealed, 'base64url');
  if (bytes.length <= IV_BYTES + TAG_BYTES) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([
      decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    return null;
  }
}
