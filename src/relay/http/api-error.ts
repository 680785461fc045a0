// Coded API errors: `{"error": {"code", "message"}}` with the status each code always has. The message is a fixed
// sentence per code, so nothing from a request or from upstream can leak through it.
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ApiErrorBody, ApiErrorCode } from '../../shared/wire.ts';

/**
 * The browser-facing codes (src/shared/wire.ts), and two the panel has no words of its own for: `bad_signature`, which
 * only the service's own calls to the relay (POST /v1/upstream-events) can get, and `storage_unavailable` (503, Redis
 * could not be used), which the panel, as for any 5xx code it does not know, treats as `upstream_unavailable`: it
 * keeps the message and retries. The code tells the operator, in the answer and the log, that Redis refused.
 */
export type RelayErrorCode = ApiErrorCode | 'bad_signature' | 'storage_unavailable';

const STATUS: Record<RelayErrorCode, ContentfulStatusCode> = {
  bad_request: 400,
  unsupported_media_type: 415,
  payload_too_large: 413,
  not_found: 404,
  forbidden_origin: 403,
  inactive: 403,
  idempotency_conflict: 409,
  rate_limited: 429,
  session_expired: 401,
  conversation_resolved: 409,
  upstream_unavailable: 503,
  upstream_timeout: 504,
  internal: 500,
  bad_signature: 401,
  storage_unavailable: 503,
};

const MESSAGE: Record<RelayErrorCode, string> = {
  bad_request: 'The request is not valid.',
  unsupported_media_type: 'Send the body as application/json.',
  payload_too_large: 'The request body is too large.',
  not_found: 'Not found.',
  forbidden_origin: 'This call is only accepted from the chat frame.',
  inactive: 'This chat is not active.',
  idempotency_conflict: 'This Idempotency-Key was already used with a different message.',
  rate_limited: 'Too many requests; try again later.',
  session_expired: 'The conversation has expired; start a new one.',
  conversation_resolved: 'The conversation has ended; start a new one.',
  upstream_unavailable: 'The chat service is unavailable; try again shortly.',
  upstream_timeout: 'The chat service did not answer in time; try again shortly.',
  internal: 'Something went wrong.',
  bad_signature: 'The event is not signed with the shared secret, or its timestamp is too far from now.',
  storage_unavailable: "The relay's shared storage is unavailable; try again shortly.",
};

export class ApiError extends Error {
  /**
   * What caused it, for the request log (never the answer): `http_500`, `timeout`, `connection_refused`,
   * `token_rejected`, `deadline`, `waiting_on_other_instance`… Fixed words and statuses, never request data.
   */
  reason?: string;

  constructor(
    readonly code: RelayErrorCode,
    readonly retryAfterSeconds?: number,
    /** A more precise fixed sentence, e.g. which field of a body is wrong. Never request or upstream data. */
    detail?: string,
  ) {
    super(detail ?? MESSAGE[code]);
  }
}

/** The same error with its cause, for the request log. */
export function withReason(error: ApiError, reason: string): ApiError {
  error.reason = reason;
  return error;
}

export function errorResponse(c: Context, error: ApiError): Response {
  // The shape of ApiErrorBody (src/shared/wire.ts), with the relay-only code allowed.
  const body: { error: { code: RelayErrorCode; message: ApiErrorBody['error']['message'] } } = {
    error: { code: error.code, message: error.message },
  };
  c.set('errorCode', error.code);
  if (error.reason !== undefined) c.set('errorCause', error.reason);
  const status = STATUS[error.code];
  if (error.retryAfterSeconds !== undefined) c.header('Retry-After', String(error.retryAfterSeconds));
  // RFC 9110 §15.5.2: a 401 says which scheme would do. Conversation calls take the handle as a Bearer token.
  if (status === 401) c.header('WWW-Authenticate', 'Bearer');
  c.header('Cache-Control', 'no-store');
  return c.json(body, status);
}
