// The conversation handle of a /v1/conversation call, read from `Authorization: Bearer HANDLE` and never from the
// URL: URLs end up in proxies' access and error logs, headers do not. A cross-origin page can only send this header
// after a CORS preflight, which the relay never approves.
import { MAX_HANDLE_LENGTH } from '../conversations/handles.ts';
import { ApiError } from '../http/api-error.ts';

// RFC 9110 §11: the scheme is case-insensitive, then one space, then the token. The token is held to the handle's own
// alphabet (base64url, which is a subset of RFC 6750's b64token) so nothing else reaches the sealer.
const BEARER = new RegExp(`^bearer ([A-Za-z0-9_-]{1,${MAX_HANDLE_LENGTH}})$`, 'i');

/**
 * The handle, or `session_expired` (401) for a header that is missing or not exactly `Bearer <handle>`: the panel
 * treats that code as "this conversation is gone", which is what a call without a usable handle is.
 * The header's value is never put into the error, a log line or anything else the relay writes.
 */
export function bearerHandle(authorization: string | undefined): string {
  // Checked before the pattern: a long header costs nothing more than its length test.
  const match =
    authorization !== undefined && authorization.length <= MAX_HANDLE_LENGTH + 7 ? BEARER.exec(authorization) : null;
  if (match === null)
    throw new ApiError('session_expired', undefined, 'Send the conversation handle as Authorization: Bearer <handle>.');
  return match[1]!;
}
