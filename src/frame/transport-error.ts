// What every failed call to the relay becomes: a stable code the panel maps to words, never a matched message.
import type { ApiErrorCode } from '../shared/wire.ts';

export type TransportErrorCode = ApiErrorCode | 'network' | 'bad_response';

export class TransportError extends Error {
  constructor(
    readonly code: TransportErrorCode,
    /** From Retry-After, when the relay sent one. */
    readonly retryAfterMs?: number,
  ) {
    super(code);
  }
}
