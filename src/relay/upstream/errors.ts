// Coded upstream failures. The relay maps codes to its own answers; it never sorts errors by message text.
// Messages are fixed per code, status and path template (no ids, no query string): no body, header, credential, token or message
// text can reach a log line through them. No `cause` is kept for the same reason (a parse error can quote input).

export type UpstreamErrorCode =
  | 'upstream_auth_failed'
  | 'upstream_forbidden'
  | 'upstream_not_found'
  | 'upstream_rejected'
  | 'upstream_rate_limited'
  | 'upstream_unavailable'
  | 'upstream_timeout'
  | 'upstream_bad_response';

/** Why no answer came, from the network error's code (never its message): what an operator acts on. */
export type NetworkReason =
  | 'connection_refused'
  | 'connection_reset'
  | 'dns_failure'
  | 'connect_timeout'
  | 'aborted'
  | 'connection_error';

export interface UpstreamErrorDetails {
  /** The request's path template (e.g. /api/conversations/{id}/): no ids, no query string. */
  path: string;
  status?: number;
  retryAfterSeconds?: number;
  /** For a failure without an answer (`upstream_unavailable` with no status). */
  reason?: NetworkReason;
}

const DESCRIPTIONS: Record<UpstreamErrorCode, string> = {
  upstream_auth_failed: 'upstream refused the credentials',
  upstream_forbidden: 'upstream denied access',
  upstream_not_found: 'upstream found nothing',
  upstream_rejected: 'upstream rejected the request',
  upstream_rate_limited: 'upstream is rate limiting',
  upstream_unavailable: 'upstream is unreachable',
  upstream_timeout: 'upstream timed out',
  upstream_bad_response: 'upstream sent an unexpected response',
};

export class UpstreamError extends Error {
  override readonly name = 'UpstreamError';
  readonly code: UpstreamErrorCode;
  readonly status?: number;
  readonly retryAfterSeconds?: number;
  readonly reason?: NetworkReason;
  /** The path template, for telling a refused token request from a refused call. */
  readonly path: string;

  constructor(code: UpstreamErrorCode, details: UpstreamErrorDetails) {
    const what = details.status === undefined ? DESCRIPTIONS[code] : `upstream answered ${details.status}`;
    super(`${what} for ${safePath(details.path)}`);
    this.code = code;
    if (details.status !== undefined) this.status = details.status;
    if (details.retryAfterSeconds !== undefined) this.retryAfterSeconds = details.retryAfterSeconds;
    if (details.reason !== undefined) this.reason = details.reason;
    this.path = safePath(details.path);
  }
}

/** Belt and braces: even if a caller passes a path with a query string (filters, search text), it is cut off. */
export function safePath(path: string): string {
  const cut = path.search(/[?#]/);
  return cut === -1 ? path : path.slice(0, cut);
}

/** The code for a non-2xx status. 401 only reaches here after the single retry with a new token. */
export function codeForStatus(status: number): UpstreamErrorCode {
  if (status === 401) return 'upstream_auth_failed';
  if (status === 403) return 'upstream_forbidden';
  if (status === 404) return 'upstream_not_found';
  if (status === 429) return 'upstream_rate_limited';
  if (status >= 500) return 'upstream_unavailable';
  if (status >= 400) return 'upstream_rejected';
  // 1xx/3xx: redirects are not followed (they could carry the Bearer token elsewhere), so they are unexpected.
  return 'upstream_bad_response';
}

/** `retryAfter` is the answer's Retry-After header, or null. */
export function errorForStatus(status: number, path: string, retryAfter: string | null, nowMs: number): UpstreamError {
  const code = codeForStatus(status);
  const retryAfterSeconds =
    code === 'upstream_rate_limited' || code === 'upstream_unavailable'
      ? parseRetryAfter(retryAfter, nowMs)
      : undefined;
  return new UpstreamError(
    code,
    retryAfterSeconds === undefined ? { path, status } : { path, status, retryAfterSeconds },
  );
}

/** Longest wait we pass on; a larger or far-future Retry-After is clamped rather than trusted. */
export const MAX_RETRY_AFTER_SECONDS = 3600;

/** Longer than any HTTP date (RFC 9110 §5.6.7, obsolete forms included) or any delay worth reading. */
const MAX_RETRY_AFTER_LENGTH = 64;

/** Retry-After is either delta-seconds or an HTTP date (RFC 9110 §10.2.3). Garbage gives undefined. */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (text.length > MAX_RETRY_AFTER_LENGTH) return undefined;
  let seconds: number;
  if (/^\d+$/.test(text)) {
    seconds = Number(text);
  } else {
    // Only something that looks like a date (it names a month or day); Date.parse alone reads '-5' as a year.
    if (!/[a-z]{3}/i.test(text)) return undefined;
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
    seconds = Math.ceil((at - nowMs) / 1000);
  }
  return Math.min(Math.max(seconds, 0), MAX_RETRY_AFTER_SECONDS);
}
