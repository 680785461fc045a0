// Upstream failures told apart, once, for the two readers that need it: metrics (an outcome from a short list) and
// the request log (a cause an operator acts on: the status, a timeout, a refused connection, refused credentials).
// Both come from codes and statuses, never from an error's message.
import type { UpstreamOutcome } from '../metrics/metrics.ts';
import { UpstreamError, type NetworkReason } from './errors.ts';
import { TOKEN_PATH } from './contract/index.ts';

/** Node's and undici's error codes for a request that got no answer. */
const REASONS: Record<string, NetworkReason> = {
  ECONNREFUSED: 'connection_refused',
  ECONNRESET: 'connection_reset',
  EPIPE: 'connection_reset',
  UND_ERR_SOCKET: 'connection_reset',
  UND_ERR_CLOSED: 'connection_reset',
  ENOTFOUND: 'dns_failure',
  EAI_AGAIN: 'dns_failure',
  UND_ERR_CONNECT_TIMEOUT: 'connect_timeout',
  ETIMEDOUT: 'connect_timeout',
  UND_ERR_DESTROYED: 'aborted',
  UND_ERR_ABORTED: 'aborted',
};

/** The reason for a network error (undici's own, or fetch's, which keeps the real one as its `cause`). */
export function networkReason(error: unknown): NetworkReason {
  for (let current = error, depth = 0; typeof current === 'object' && current !== null && depth < 3; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code in REASONS) return REASONS[code]!;
    current = (current as { cause?: unknown }).cause;
  }
  return 'connection_error';
}

export function outcomeOfStatus(status: number): UpstreamOutcome {
  if (status >= 200 && status <= 299) return 'ok';
  if (status === 429) return '429';
  if (status >= 500) return '5xx';
  if (status >= 400) return '4xx';
  return 'bad_response';
}

/** The outcome of an exchange that threw (transport errors only: a status comes back as an answer). */
export function outcomeOfError(error: unknown): UpstreamOutcome {
  if (error instanceof UpstreamError && error.code === 'upstream_timeout') return 'timeout';
  if (error instanceof UpstreamError && error.code === 'upstream_bad_response') return 'bad_response';
  return 'connection_error';
}

/**
 * The cause a request log line carries for an upstream failure: `token_rejected` (the service refused the relay's
 * credentials), `http_<status>`, `timeout`, or the network reason (`connection_refused`, …).
 */
export function upstreamCause(error: UpstreamError): string {
  if (error.path === TOKEN_PATH && (error.status === 400 || error.status === 401)) return 'token_rejected';
  if (error.status !== undefined) return `http_${error.status}`;
  if (error.code === 'upstream_timeout') return 'timeout';
  if (error.code === 'upstream_bad_response') return 'bad_response';
  return error.reason ?? 'connection_error';
}
