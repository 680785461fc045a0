// The relay's transport: an undici Pool of keep-alive connections to the one upstream origin, used through
// `pool.dispatch` (see exchange() below), as undici's authors recommend for a server that talks to one upstream. Compared with fetch it
// builds no WHATWG Request/Response/stream objects and no AbortSignal per call: the deadline is undici's own
// headers/body timers, which it keeps on a shared coarse timer wheel rather than one timer per request.
import { errors, Pool } from 'undici';
import { networkReason } from './failure-cause.ts';
import { UpstreamError } from './errors.ts';
import type { Cancellation } from './cancellation.ts';
import type { Transport } from './transport.ts';

export interface PoolTransportOptions {
  /** The upstream's origin (scheme, host, port); requests to any other origin are refused. */
  origin: string;
  /** Longest wait for the answer's headers, and then for each part of its body. */
  timeoutMs: number;
  /** At most this many connections to upstream at once; requests beyond wait for a free one. A bound keeps a burst
   * of browsers from opening a socket each against the service (UPSTREAM_CONNECTIONS, docs/settings.md). */
  connections?: number;
}

export interface PoolTransport {
  transport: Transport;
  /** Lets the calls in flight finish, then closes the connections; `abortInFlight` cuts those calls at once. */
  close(options?: { abortInFlight?: boolean }): Promise<void>;
}

/** The pool's size unless the operator sets UPSTREAM_CONNECTIONS. */
export const DEFAULT_UPSTREAM_CONNECTIONS = 64;

export function createPoolTransport({
  origin,
  timeoutMs,
  connections = DEFAULT_UPSTREAM_CONNECTIONS,
}: PoolTransportOptions): PoolTransport {
  const pool = new Pool(origin, {
    connections,
    pipelining: 1,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 4_000,
  });

  // A target given as a string is on this origin when it starts with it and a slash: the authority ends there.
  const originPrefix = `${new URL(origin).origin}/`;
  const pathOf = (url: URL | string): string | null => {
    if (typeof url !== 'string') return url.origin === origin ? url.pathname + url.search : null;
    return url.startsWith(originPrefix) ? url.slice(originPrefix.length - 1) : null;
  };

  const transport: Transport = async ({ method, url, route, headers, body, signal }) => {
    const path = pathOf(url);
    if (path === null) throw new UpstreamError('upstream_bad_response', { path: route });
    if (signal?.aborted) throw signal.reason;
    try {
      return await exchange(pool, { method, path, headers, body: body ?? null }, signal);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError) {
        throw new UpstreamError('upstream_timeout', { path: route });
      }
      throw new UpstreamError('upstream_unavailable', { path: route, reason: networkReason(error) });
    }
  };

  // The first close decides; a later one (a graceful close after an abort) waits for the same end.
  let closing: Promise<void> | null = null;
  const close = ({ abortInFlight = false } = {}) => {
    if (closing === null || (abortInFlight && !pool.destroyed)) {
      // destroy() rejects every call in flight (an UpstreamError below: for a send, an unknown outcome on record).
      closing = abortInFlight ? pool.destroy() : pool.close();
    }
    return closing;
  };
  return { transport, close };
}

type Answer = Awaited<ReturnType<Transport>>;

/**
 * One request through `pool.dispatch` with a handler that collects the body's chunks. `pool.request` would wrap each
 * answer in an AsyncResource and a Readable stream only for the body to be read whole at once: in the relay's profile
 * that layer cost about as much as decoding the answer. A caller's signal aborts the request (never followed
 * redirects: dispatch does not follow them either). undici's headers/body timers still bound every request.
 */
function exchange(
  pool: Pool,
  options: { method: string; path: string; headers: Record<string, string>; body: string | null },
  signal: Cancellation | undefined,
): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let status = 0;
    let retryAfter: string | null = null;
    let controller: { abort(reason: Error): void } | null = null;
    // undici is told why with an Error; the transport rethrows the caller's own reason, whatever it is (above).
    const abortReason = () => (signal?.reason instanceof Error ? signal.reason : new Error('cancelled by the caller'));
    const onAbort = () => controller?.abort(abortReason());
    const done = () => signal?.removeEventListener('abort', onAbort);
    signal?.addEventListener('abort', onAbort, { once: true });
    pool.dispatch(options, {
      onRequestStart(requestController) {
        controller = requestController;
        if (signal?.aborted) requestController.abort(abortReason());
      },
      onResponseStart(_controller, statusCode, responseHeaders) {
        status = statusCode;
        const value = responseHeaders['retry-after'];
        retryAfter = typeof value === 'string' ? value : null;
      },
      onResponseData(_controller, chunk) {
        chunks.push(chunk);
      },
      onResponseEnd() {
        done();
        const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
        resolve({ status, retryAfter, text });
      },
      onResponseError(_controller, error) {
        done();
        reject(error);
      },
    });
  });
}
