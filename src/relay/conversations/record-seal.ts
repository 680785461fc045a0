// Idempotency records in shared storage hold what a retry must be answered with: a conversation's handle, a sent
// message's upstream ids. Sealed under a key derived from the request's own Idempotency-Key, its scope and the relay's
// secret, a record tells whoever reads the storage nothing, and opens only for the request that made it.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

export interface RecordSealer {
  seal(scope: string, idempotencyKey: string, plaintext: string): string;
  /** The plaintext, or null when the sealed text was not made with this scope, key and secret. */
  open(scope: string, idempotencyKey: string, sealed: string): string | null;
  /**
   * A sealer for one scope and key that never change (the event bus's channel): its key is derived here, once,
   * rather than on every seal and open. It seals exactly as `seal(scope, idempotencyKey, …)` does.
   */
  bound(scope: string, idempotencyKey: string): BoundSealer;
}

export interface BoundSealer {
  seal(plaintext: string): string;
  open(sealed: string): string | null;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

export function createRecordSealer(secret: Uint8Array, purpose: string): RecordSealer {
  const info = `practice-webchat/${purpose}/v1`;
  const keyFor = (scope: string, idempotencyKey: string) => hkdfSha256(secret, `\u0000${idempotencyKey}`, scope, info);
  return {
    seal: (scope, idempotencyKey, plaintext) => sealWith(keyFor(scope, idempotencyKey), plaintext),
    open: (scope, idempotencyKey, sealed) => openWith(keyFor(scope, idempotencyKey), sealed),
    bound(scope, idempotencyKey) {
      const key = keyFor(scope, idempotencyKey);
      return { seal: (plaintext) => sealWith(key, plaintext), open: (sealed) => openWith(key, sealed) };
    },
  };
}

const FIRST_BLOCK = Buffer.from([1]);

/**
 * HKDF-SHA256 (RFC 5869) of `secret` followed by `suffix`, for one key of SHA-256's length: the extract, then the first
 * block of the expand. Byte for byte what `hkdfSync('sha256', secret + suffix, salt, info, 32)` gives, so records
 * sealed before still open; two HMACs cost a fraction of hkdfSync, which builds a key object and a crypto job
 * for every call, and every send with Redis derives a key for its record.
 */
export function hkdfSha256(secret: Uint8Array, suffix: string, salt: string, info: string): Buffer {
  // An empty salt is HMAC's all-zero key, as the RFC asks.
  const pseudorandomKey = createHmac('sha256', salt).update(secret).update(suffix).digest();
  return createHmac('sha256', pseudorandomKey).update(info).update(FIRST_BLOCK).digest();
}

function sealWith(key: Buffer, plaintext: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  return Buffer.concat([iv, cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]).toString(
    'base64url',
  );
}

function openWith(key: Buffer, sealed: string): string | null {
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
