// Random nonces for AES-GCM, drawn from batches: one call to the system's CSPRNG fills a batch, which is handed out in
// slices, once each, as Node keeps a cache of random bytes behind `randomUUID`. Each `randomBytes` call makes a crypto
// job of its own, which in the relay's CPU profile of a send with Redis (two sealed texts a send) cost more than the
// sealing itself. Every nonce is still random bytes from the CSPRNG, never handed out twice: a batch is a fresh buffer,
// never refilled in place, so a slice given out earlier is never overwritten.
import { randomBytes } from 'node:crypto';

/** How many random bytes one CSPRNG call draws. */
export const NONCE_BATCH_BYTES = 4096;

/**
 * @example
 * const nonce = createNonceSource();
 * const iv = nonce(12); // 12 random bytes, unique to this call
 */
export function createNonceSource(batchBytes = NONCE_BATCH_BYTES): (bytes: number) => Buffer {
  let batch: Buffer = Buffer.alloc(0);
  let offset = 0;
  return (bytes) => {
    if (bytes > batchBytes) return randomBytes(bytes);
    if (offset + bytes > batch.length) {
      batch = randomBytes(batchBytes);
      offset = 0;
    }
    const nonce = batch.subarray(offset, offset + bytes);
    offset += bytes;
    return nonce;
  };
}
