// Idempotency records in shared storage hold what a retry must be answered with: a conversation's handle, a sent
// message's upstream ids. Sealed under a key derived from the request's own Idempotency-Key, its scope and the relay's
// secret, a record tells whoever reads the storage nothing, and opens only for the request that made it.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

export interface RecordSealer {
  seal(scope: string, idempotencyKey: string, plaintext: string): string;
  /** The plaintext, or null when the sealed text was not made with this scope, key and secret. */
  open(scope: string, idempotencyKey: string, sealed: string): string | null;
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
    seal(scope, idempotencyKey, plaintext) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', keyFor(scope, idempotencyKey), iv);
      return Buffer.concat([iv, cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]).toString(
        'base64url',
      );
    },
    open(scope, idempotencyKey, sealed) {
      const bytes = Buffer.from(sealed, 'base64url');
      if (bytes.length <= IV_BYTES + TAG_BYTES) return null;
      try {
        const decipher = createDecipheriv('aes-256-gcm', keyFor(scope, idempotencyKey), bytes.subarray(0, IV_BYTES));
        decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
        return Buffer.concat([
          decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
          decipher.final(),
        ]).toString('utf8');
      } catch {
        return null;
      }
    },
  };
}
