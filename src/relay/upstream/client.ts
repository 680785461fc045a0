// Wires the token manager, the authorized HTTP layer and the contract. The token manager stays inside: callers
// get the contract operations and nothing that could hand out the token or the credentials.
import { createContract, type UpstreamContract } from './contract/index.ts';
import { createUpstreamHttp } from './http.ts';
import { measuredTransport, type UpstreamMetrics } from './measured-transport.ts';
import { createPoolTransport } from './pool-transport.ts';
import { createTokenManager, type TokenState } from './token-manager.ts';
import { fetchTransport, type FetchLike } from './transport.ts';
import { withoutTrailingSlashes } from './trailing-slashes.ts';

export interface UpstreamClientOptions {
  /** Absolute http(s) URL of the service, e.g. https://api.example.com (a path prefix is kept). */
  baseUrl: string;
  username: string;
  password: string;
  /** For tests and in-process setups; without it the client keeps its own pool of keep-alive connections. */
  fetch?: FetchLike;
  now?: () => number;
  /** Per-request deadline, for API calls and token requests alike. */
  timeoutMs?: number;
  /**
   * At most this many connections to the service at once (the client's own pool; not used with `fetch`); calls
   * beyond wait for a free one. The relay takes it from UPSTREAM_CONNECTIONS.
   */
  connections?: number;
  /** Where every exchange is counted (metrics); nothing is counted without it. */
  metrics?: UpstreamMetrics;
  /** Once per failing streak: the service refused the credentials (the caller logs it; the client holds no logger). */
  onCredentialsRefused?: () => void;
}

export type UpstreamClient = UpstreamContract & {
  /**
   * Closes the client's upstream connections (at shutdown), once the calls in flight finish; with `abortInFlight`
   * (the grace period is over) it cuts them at once, each failing as `upstream_unavailable`.
   */
  close(options?: { abortInFlight?: boolean }): Promise<void>;
  /** The access token's state for /readyz, from memory (no upstream request); never the token itself. */
  tokenState(): TokenState;
};

export function createUpstreamClient(options: UpstreamClientOptions): UpstreamClient {
  const base = parseBaseUrl(options.baseUrl);
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const pool = options.fetch
    ? null
    : createPoolTransport({
        origin: new URL(base).origin,
        timeoutMs,
        ...(options.connections === undefined ? {} : { connections: options.connections }),
      });
  const bare = pool?.transport ?? fetchTransport(options.fetch!, timeoutMs);
  const transport = options.metrics === undefined ? bare : measuredTransport(bare, options.metrics);
  const tokens = createTokenManager({
    baseUrl: base,
    username: options.username,
    password: options.password,
    transport,
    now,
    ...(options.onCredentialsRefused === undefined ? {} : { onCredentialsRefused: options.onCredentialsRefused }),
  });
  const contract = createContract(createUpstreamHttp({ baseUrl: base, tokens, transport, now }));
  return { ...contract, close: async (closeOptions) => pool?.close(closeOptions), tokenState: () => tokens.state() };
}

/** Fails at start-up rather than at the first request; the message never repeats the value (it could hold a secret). */
function parseBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError('upstream baseUrl must be an absolute http(s) URL');
  }
  if (
    (url.protocol !== 'https:' && url.protocol !== 'http:') ||
    url.username ||
    url.password ||
    url.search ||
    url.hash
  ) {
    throw new TypeError('upstream baseUrl must be an absolute http(s) URL without credentials, query or fragment');
  }
  return withoutTrailingSlashes(url.href);
}
