// One exchange with the upstream: a request out, the whole answer back under a deadline, and network failures
// turned into coded errors. Used by the token manager and the authorized HTTP layer alike.
//
// Two kinds sit behind the one `Transport` type: the relay's own (pool-transport.ts: an undici Pool of keep-alive
// connections, what a server talking to one upstream should use), and `fetchTransport` around any fetch function,
// which tests and in-process setups inject.
import type { z } from 'zod';
import type { Method } from './contract/index.ts';
import { UpstreamError } from './errors.ts';
import { networkReason } from './failure-cause.ts';
import { asAbortSignal, type Cancellation } from './cancellation.ts';

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface RawResponse {
  status: number;
  /** The Retry-After header, the only header the client reads. */
  retryAfter: string | null;
  text: string;
}

export interface OutgoingRequest {
  method: Method;
  /** Absolute; a string when the caller built it from the configured base (http.ts), which spares a parse. */
  url: URL | string;
  /** How errors name the request: a path template, without ids or query. */
  route: string;
  headers: Record<string, string>;
  body?: string;
  /** A caller's cancellation; its reason is rethrown as is, since it is not an upstream failure. */
  signal?: Cancellation | undefined;
}

/** Never follows redirects (a redirect is answered as a 3xx, which the callers treat as a bad response), so the
 * Bearer token cannot be carried elsewhere; rejects with `upstream_timeout` or `upstream_unavailable`. */
export type Transport = (request: OutgoingRequest) => Promise<RawResponse>;

/** A transport over a fetch function, with a deadline of `timeoutMs` for the answer and its whole body. */
export function fetchTransport(fetch: FetchLike, timeoutMs: number): Transport {
  return async ({ method, url, route, headers, body, signal }) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([deadline, asAbortSignal(signal)]) : deadline;
    // Raced against the signal too: a fetch that ignores its signal (an in-process app, a stub) still times out.
    const aborted = new Promise<never>((_, reject) => {
      if (combined.aborted) reject(combined.reason);
      combined.addEventListener('abort', () => reject(combined.reason), { once: true });
    });
    aborted.catch(() => {}); // settled after we are done more often than not; never an unhandled rejection
    try {
      const init: RequestInit = { method, headers, signal: combined, redirect: 'manual' };
      if (body !== undefined) init.body = body;
      const response = await Promise.race([fetch(typeof url === 'string' ? url : url.href, init), aborted]);
      const text = await Promise.race([response.text(), aborted]);
      return { status: response.status, retryAfter: response.headers.get('retry-after'), text };
    } catch (error) {
      // Decided from our own signals, not from the error's name: fake and real fetches name aborts differently.
      if (deadline.aborted) throw new UpstreamError('upstream_timeout', { path: route });
      if (signal?.aborted) throw signal.reason;
      throw new UpstreamError('upstream_unavailable', { path: route, reason: networkReason(error) });
    }
  };
}

/** The given transport, else one over the given fetch (with the per-request deadline). */
export function transportOf(options: { transport?: Transport; fetch?: FetchLike; timeoutMs?: number }): Transport {
  if (options.transport) return options.transport;
  if (!options.fetch) throw new TypeError('an upstream transport or fetch is required');
  return fetchTransport(options.fetch, options.timeoutMs ?? 10_000);
}

/** JSON.parse then the schema; either failing is the upstream's fault, reported without quoting the body. */
export function decode<S extends z.ZodType>(raw: RawResponse, path: string, schema: S): z.output<S> {
  let value: unknown;
  if (raw.status === 204 || raw.text === '') {
    value = undefined;
  } else {
    try {
      value = JSON.parse(raw.text);
    } catch {
      throw new UpstreamError('upstream_bad_response', { path });
    }
  }
  const result = schema.safeParse(value);
  if (!result.success) throw new UpstreamError('upstream_bad_response', { path });
  return result.data;
}
