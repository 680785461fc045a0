// Upstream failures as the browser may see them: a small set of codes, each with a Retry-After where waiting helps.
// Which practice or account was refused, and why, stays in the relay.
import { UpstreamError, upstreamCause } from '../upstream/index.ts';
import { ApiError, withReason } from './api-error.ts';

/** How long a browser should wait before trying again after the upstream failed without saying. */
export const DEFAULT_RETRY_AFTER_SECONDS = 5;

/**
 * The API error for an upstream failure. Anything else is a bug, not an upstream failure: it is rethrown, so the app's
 * error handler logs it (by class name only) and answers `internal`.
 */
export function apiErrorFromUpstream(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (!(error instanceof UpstreamError)) throw error;
  return withReason(apiErrorFor(error), upstreamCause(error));
}

function apiErrorFor(error: UpstreamError): ApiError {
  switch (error.code) {
    case 'upstream_not_found':
    // A configuration of a practice the relay's account cannot see is, for a browser, simply not there.
    case 'upstream_forbidden':
      return new ApiError('not_found');
    case 'upstream_timeout':
      return new ApiError('upstream_timeout', error.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS);
    // Upstream refused what was asked (a 4xx): asking again will not help, so no Retry-After invites a retry.
    case 'upstream_rejected':
      return new ApiError('bad_request');
    case 'upstream_rate_limited':
    case 'upstream_unavailable':
    case 'upstream_bad_response':
    case 'upstream_auth_failed':
      return new ApiError('upstream_unavailable', Math.max(1, error.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS));
  }
}
