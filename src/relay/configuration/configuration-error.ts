// What the configuration service says when it has no configuration to give, in its own words: it knows the upstream
// service, not HTTP. The routes decide what a browser hears (routes/configuration-errors.ts).
import { UpstreamError } from '../upstream/index.ts';

/**
 * `not_found`: the service knows no such client_id, or not for the relay's account (a practice it cannot see is,
 * for a browser, simply not there); remembered briefly, so that made-up ids do not each cost an upstream request.
 * `unavailable`: the configuration could not be loaded now; asking again may work, and nothing is remembered.
 */
export type ConfigurationErrorCode = 'not_found' | 'unavailable';

export class ConfigurationError extends Error {
  constructor(
    readonly code: ConfigurationErrorCode,
    /** The upstream failure behind it, for the answer's retry hint and the log's cause: codes, never a body or an id. */
    readonly upstream: UpstreamError,
  ) {
    super(`configuration ${code}`);
    this.name = 'ConfigurationError';
  }
}

/** The configuration's failure for an upstream one. Anything else is a bug, not a missing configuration: rethrown. */
export function configurationErrorFrom(error: unknown): ConfigurationError {
  if (!(error instanceof UpstreamError)) throw error;
  const missing = error.code === 'upstream_not_found' || error.code === 'upstream_forbidden';
  return new ConfigurationError(missing ? 'not_found' : 'unavailable', error);
}
