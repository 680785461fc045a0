// Idempotency records in shared storage hold what a retry must be answered with: a conversation's handle, a sent
// message's upstream ids. Each is sealed under a key of its own, derived from the kind of record's key (itself from
// the relay's secret), the record's scope and the request's Idempotency-Key: a record tells whoever reads the storage
// nothing, and opens only for the request that made it.
import { contextKey, openText, purposeKey, sealText } from '../shared-state/sealing.ts';
import { digest } from './digest.ts';

/** The kinds of idempotency record, each sealed under its own key. */
export type RecordKind = 'sent-record' | 'created-record';

export interface RecordSealer {
  seal(scope: string, idempotencyKey: string, plaintext: string): string;
  /** The plaintext, or null when the sealed text was not made with this scope, key, kind and secret. */
  open(scope: string, idempotencyKey: string, sealed: string): string | null;
}

export function createRecordSealer(secret: Uint8Array, kind: RecordKind): RecordSealer {
  const kindKey = purposeKey(secret, kind);
  // The Idempotency-Key as a digest: HKDF's `info` is bounded, and the key's length is the routes' to decide.
  const keyFor = (scope: string, idempotencyKey: string) => contextKey(kindKey, scope, digest(idempotencyKey));
  return {
    seal: (scope, idempotencyKey, plaintext) => sealText(keyFor(scope, idempotencyKey), plaintext),
    open: (scope, idempotencyKey, sealed) => openText(keyFor(scope, idempotencyKey), sealed),
  };
}
