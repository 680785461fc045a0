// A missing configuration as the browser may see it. The configuration service speaks its own errors
// (configuration/configuration-error.ts); this is where they become answers.
import type { ConfigurationError } from '../configuration/configuration-error.ts';
import { ApiError, withReason } from '../http/api-error.ts';
import { apiErrorFromUpstream } from '../http/upstream-errors.ts';
import { upstreamCause } from '../upstream/index.ts';

/**
 * `not_found` is `not_found` (404) whatever the upstream said (no such id, or a practice the account cannot see);
 * `unavailable` is the upstream failure's own answer (`upstream_unavailable` or `upstream_timeout` with Retry-After).
 * Both keep the upstream cause for the request log.
 */
export function apiErrorFromConfiguration(error: ConfigurationError): ApiError {
  switch (error.code) {
    case 'not_found':
      return withReason(new ApiError('not_found'), upstreamCause(error.upstream));
    case 'unavailable':
      return apiErrorFromUpstream(error.upstream);
  }
}
