// The relay's transport: an undici Pool of keep-alive connections to the one upstream origin, used through
// `pool.request`, as undici's authors recommend for a server that talks to one upstream. Compared with fetch it
// builds no WHATWG Request/Response/stream objects and no AbortSignal per call: the deadline is undici's own
// headers/body timers, which it keeps on a shared coarse timer wheel rather than one timer per request.
import { errors, Pool } from 'undici';
import { UpstreamError } from './errors.ts';
import type { Transport } from './transport.ts';

export interface PoolTransportOptions {
  /** The upstream's origin (scheme, host, port); requests to any other origin are refused. */
  origin: string;
  /** Longest wait for the answer's headers, and then for each part of its body. */
  timeoutMs: number;
  /** At most this many connections to upstream at once; requests beyond wait for a free one. A bound keeps a burst
   * of browsers from opening a socket each against the service. */
  connections?: number;
}

export interface PoolTransport {
  transport: Transport;
  close(): Promise<void>;
}

export function createPoolTransport({ origin, timeoutMs, connections = 64 }: PoolTransportOptions): PoolTransport {
  const pool = new Pool(origin, {
    connections,
    pipelining: 1,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 4_000,
  });

  const transport: Transport = async ({ method, url, route, headers, body, signal }) => {
    if (url.origin !== origin) throw new UpstreamError('upstream_bad_response', { path: route });
    try {
      const response = await pool.request({
        method,
        path: url.pathname + url.search,
        headers,
        body: body ?? null,
        // Only a caller's own cancellation; undefined costs nothing.
        signal: signal ?? null,
        // undici never follows redirects from `request` (that takes an interceptor), so a 3xx comes back as is.
      });
      const text = await response.body.text();
      const retryAfter = response.headers['retry-after'];
      return { status: response.statusCode, retryAfter: typeof retryAfter === 'string' ? retryAfter : null, text };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError) {
        throw new UpstreamError('upstream_timeout', { path: route });
      }
      throw new UpstreamError('upstream_unavailable', { path: route });
    }
  };

  return { transport, close: () => pool.close() };
}
