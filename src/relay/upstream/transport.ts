// One exchange with the upstream: fetch with a deadline, read the whole body under the same deadline, and turn
// network failures into coded errors. Used by the token manager and the authorized HTTP layer alike.
import type { z } from 'zod';
import { UpstreamError } from './errors.ts';

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
}

export interface SendOptions {
  fetch: FetchLike;
  url: URL;
  /** How errors name the request: a path template, without ids or query. */
  route: string;
  init: RequestInit;
  timeoutMs: number;
  /** A caller's cancellation; its reason is rethrown as is, since it is not an upstream failure. */
  signal?: AbortSignal | undefined;
}

export async function send({ fetch, url, route, init, timeoutMs, signal }: SendOptions): Promise<RawResponse> {
  const deadline = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([deadline, signal]) : deadline;
  // Raced against the signal too: a fetch that ignores its signal (an in-process app, a stub) still times out.
  const aborted = new Promise<never>((_, reject) => {
    if (combined.aborted) reject(combined.reason);
    combined.addEventListener('abort', () => reject(combined.reason), { once: true });
  });
  aborted.catch(() => {}); // settled after we are done more often than not; never an unhandled rejection
  try {
    // redirect 'manual': a redirect is answered as a 3xx (→ bad_response) instead of being followed with our headers.
    const response = await Promise.race([fetch(url.href, { ...init, signal: combined, redirect: 'manual' }), aborted]);
    const text = await Promise.race([response.text(), aborted]);
    return { status: response.status, headers: response.headers, text };
  } catch {
    // Decided from our own signals, not from the error's name: fake and real fetches name aborts differently.
    if (deadline.aborted) throw new UpstreamError('upstream_timeout', { path: route });
    if (signal?.aborted) throw signal.reason;
    throw new UpstreamError('upstream_unavailable', { path: route });
  }
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
