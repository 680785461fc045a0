// Holds the service credentials and the access token (password grant). Nothing outside src/relay/upstream/ sees
// either: the HTTP layer is the only caller of getToken().
import { UpstreamError, errorForStatus } from './errors.ts';
import { lifetimeSeconds, refreshAfterMs } from './lifetime.ts';
import { EXCHANGES, TOKEN_PATH, tokenResponseSchema } from './contract/index.ts';
import { decode, transportOf, type FetchLike, type Transport } from './transport.ts';
import { withoutTrailingSlashes } from './trailing-slashes.ts';

export interface TokenSource {
  getToken(): Promise<string>;
  /** Forget the cached token if (and only if) it is this one: a late 401 for an old token keeps a fresh one. */
  invalidate(token: string): void;
  /** What /readyz reports: read from memory, never a request. Holds no token, only times. */
  state(): TokenState;
}

/**
 * - none: no token yet (or the last one expired or was refused); the next request fetches one.
 * - valid: a token that has not expired, even while a refresh of it is failing.
 * - failing: the last token request failed and no valid token is left; `since` is the first failure of the run,
 *   `retryAt` the end of the current backoff window.
 */
export type TokenState =
  | { state: 'none' }
  | { state: 'valid'; expiresAt: number }
  | { state: 'failing'; since: number; retryAt: number };

export interface TokenManagerOptions {
  baseUrl: string;
  username: string;
  password: string;
  /** How requests go out: the relay's pool, or (tests) a transport over `fetch`. One of the two is required. */
  transport?: Transport;
  fetch?: FetchLike;
  now?: () => number;
  timeoutMs?: number;
  /** First wait after a failed token request; doubles per consecutive failure up to backoffMaxMs. */
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  /**
   * Called once when the service refuses the credentials (400/401 to the token request), and again only after a token
   * has been issued in between: one log line per failing streak, not one per request.
   */
  onCredentialsRefused?: () => void;
}

export { TOKEN_PATH };

interface Cached {
  token: string;
  refreshAt: number;
  expiresAt: number;
}

interface Failure {
  error: unknown;
  until: number;
  delayMs: number;
  /** When the first of these consecutive failures happened. */
  since: number;
}

export function createTokenManager(options: TokenManagerOptions): TokenSource {
  const { username, password } = options;
  const now = options.now ?? Date.now;
  const transport = transportOf(options);
  const backoffInitialMs = options.backoffInitialMs ?? 1_000;
  const backoffMaxMs = options.backoffMaxMs ?? 60_000;
  const url = new URL(withoutTrailingSlashes(options.baseUrl) + TOKEN_PATH);

  let cached: Cached | null = null;
  // Single flight: every caller that needs a token while one is being requested shares that request.
  let inflight: Promise<string> | null = null;
  // Backoff after a failure, so that a wrong password does not hammer the endpoint (account lockout).
  let failure: Failure | null = null;

  async function requestToken(): Promise<Cached> {
    const issuedAt = now(); // counted from before the request, so network time only makes us refresh earlier
    const raw = await transport({
      method: EXCHANGES.token.method,
      url,
      route: TOKEN_PATH,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: new URLSearchParams({ username, password, grant_type: 'password', format: 'json' }).toString(),
    });
    if (raw.status === 400 || raw.status === 401) {
      throw new UpstreamError('upstream_auth_failed', { path: TOKEN_PATH, status: raw.status });
    }
    if (raw.status < 200 || raw.status > 299) throw errorForStatus(raw.status, TOKEN_PATH, raw.retryAfter, now());
    const body = decode(raw, TOKEN_PATH, tokenResponseSchema);
    const lifetime = lifetimeSeconds(body.expires_in);
    return {
      token: body.access_token,
      refreshAt: issuedAt + refreshAfterMs(lifetime),
      expiresAt: issuedAt + lifetime * 1000,
    };
  }

  function refresh(): Promise<string> {
    inflight ??= requestToken().then(
      (fresh) => {
        cached = fresh;
        failure = null;
        inflight = null;
        return fresh.token;
      },
      (error: unknown) => {
        const refused = error instanceof UpstreamError && error.code === 'upstream_auth_failed';
        if (refused && !(failure?.error instanceof UpstreamError && failure.error.code === 'upstream_auth_failed'))
          options.onCredentialsRefused?.();
        const delayMs = failure ? Math.min(failure.delayMs * 2, backoffMaxMs) : backoffInitialMs;
        const t = now();
        failure = { error, until: t + delayMs, delayMs, since: failure?.since ?? t };
        inflight = null;
        throw error;
      },
    );
    return inflight;
  }

  async function getToken(): Promise<string> {
    const t = now();
    if (cached && t < cached.refreshAt) return cached.token;
    if (inflight) return stillValidOr(inflight);
    if (failure && t < failure.until) {
      // Inside the backoff window: no request. A token that has not expired yet is still worth using.
      if (cached && t < cached.expiresAt) return cached.token;
      throw failure.error;
    }
    return stillValidOr(refresh());
  }

  /** During the early-refresh window a failed refresh falls back to the token that is still valid. */
  async function stillValidOr(pending: Promise<string>): Promise<string> {
    const previous = cached;
    try {
      return await pending;
    } catch (error) {
      if (previous && previous === cached && now() < previous.expiresAt) return previous.token;
      throw error;
    }
  }

  function invalidate(token: string): void {
    if (cached?.token === token) cached = null;
  }

  function state(): TokenState {
    const t = now();
    if (cached && t < cached.expiresAt) return { state: 'valid', expiresAt: cached.expiresAt };
    if (failure) return { state: 'failing', since: failure.since, retryAt: failure.until };
    return { state: 'none' };
  }

  return { getToken, invalidate, state };
}
