// Idempotency records in shared storage hold what a retry must be answered with: a conversation's handle, a sent
// message's upstream ids. Sealed under a key derived from the request's own Idempotency-Key, its scope and the relay's
// secret, a record tells whoever reads the storage nothing, and opens only for the request that made it.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

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
  const keyFor = (scope: string, idempotencyKey: string) =>
    Buffer.from(
      hkdfSync(
        'sha256',
        Buffer.concat([Buffer.from(secret), Buffer.from(`\u0000${idempotencyKey}`)]),
        scope,
        `practice-webchat/${purpose}/v1`,
        32,
      ),
    );
  return {
    seal: (scope, idempotencyKey, plaintext) => sealWith(keyFor(scope, idempotencyKey), plaintext),
    open: (scope, idempotencyKey, sealed) => openWith(keyFor(scope, idempotencyKey), sealed),
    bound(scope, idempotencyKey) {
      const key = keyFor(scope, idempotencyKey);
      return { seal: (plaintext) => sealWith(key, plaintext), open: (sealed) => openWith(key, sealed) };
    },
  };
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
