// Authorized requests, as the contract asks for them (contract/upstream-http.ts): the only place that puts the
// Bearer token on the wire. A 401 invalidates exactly the token that was used and retries once with a new one (the
// service says: on 401, request a new token); a second 401 is final, so a broken account can never make a loop.
import type { z } from 'zod';
import type { Method, Query, UpstreamHttp } from './contract/index.ts';
import { UpstreamError, errorForStatus } from './errors.ts';
import type { TokenSource } from './token-manager.ts';
import type { Cancellation } from './cancellation.ts';
import { decode, transportOf, type FetchLike, type RawResponse, type Transport } from './transport.ts';
import { withoutTrailingSlashes } from './trailing-slashes.ts';

export interface UpstreamHttpOptions {
  baseUrl: string;
  tokens: TokenSource;
  /** How requests go out: the relay's pool, or (tests) a transport over `fetch`. One of the two is required. */
  transport?: Transport;
  fetch?: FetchLike;
  timeoutMs?: number;
  now?: () => number;
}

export function createUpstreamHttp(options: UpstreamHttpOptions): UpstreamHttp {
  const { tokens } = options;
  const transport = transportOf(options);
  const now = options.now ?? Date.now;
  const base = withoutTrailingSlashes(options.baseUrl);
  const origin = new URL(base).origin;
  // The base as the URL parser writes it, so that a target built on it as a string is the one `new URL` would give.
  const parsedBase = withoutTrailingSlashes(new URL(base).href);

  async function exchange(
    method: Method,
    url: URL | string,
    route: string,
    json: unknown,
    signal: Cancellation | undefined,
  ): Promise<RawResponse> {
    const once = async (token: string) => {
      const headers: Record<string, string> = { Authorization: `Bearer ${token}`, Accept: 'application/json' };
      if (json === undefined) return transport({ method, url, route, headers, signal });
      headers['Content-Type'] = 'application/json';
      return transport({ method, url, route, headers, body: JSON.stringify(json), signal });
    };
    const used = await tokens.getToken();
    const first = await once(used);
    if (first.status !== 401) return first;
    tokens.invalidate(used);
    return once(await tokens.getToken());
  }

  async function run<S extends z.ZodType>(
    method: Method,
    url: URL | string,
    route: string,
    schema: S,
    json: unknown,
    signal?: Cancellation,
  ) {
    const raw = await exchange(method, url, route, json, signal);
    if (raw.status < 200 || raw.status > 299) throw errorForStatus(raw.status, route, raw.retryAfter, now());
    return decode(raw, route, schema);
  }

  return {
    request(method, path, { schema, params, query, json, signal }) {
      if (!path.startsWith('/')) throw new TypeError('upstream path must start with /');
      return run(method, requestTarget(parsedBase, path, params ?? {}, query), path, schema, json, signal);
    },
    getAbsolute(link, schema, { route = '/', signal } = {}) {
      let url: URL;
      try {
        url = new URL(link, base + '/');
      } catch {
        return Promise.reject(new UpstreamError('upstream_bad_response', { path: route }));
      }
      // A forged links.next must not receive the Bearer token: refuse before any request is made.
      if (url.origin !== origin) return Promise.reject(new UpstreamError('upstream_bad_response', { path: route }));
      return run('GET', url, route, schema, undefined, signal);
    },
  };
}

/**
 * The absolute URL of a call, as a string: what `new URL(base + path)` with the query set through `searchParams`
 * would write, without building a WHATWG URL (and its search parameters) for every call on the hot paths. The path is
 * a template of the contract and each value is percent-encoded, so the parser would change nothing, except for a
 * value that is a dot segment (`.`, `..`), which it would resolve: that rare target is still built by the parser.
 */
export function requestTarget(
  parsedBase: string,
  template: string,
  params: Readonly<Record<string, string>>,
  query: Query | undefined,
): string | URL {
  let search = '';
  if (query !== undefined) {
    const pairs = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined && value !== null) pairs.set(key, String(value));
    }
    const serialized = pairs.toString();
    if (serialized !== '') search = `?${serialized}`;
  }
  for (const key in params) {
    const value = params[key];
    if (value === '.' || value === '..') return new URL(parsedBase + fill(template, params) + search);
  }
  return parsedBase + fill(template, params) + search;
}

/**
 * A path template split once into its text and its placeholders' names, alternately (`text, name, text, …, text`):
 * the contract has a dozen templates, so the list stays small, and a call fills its template without a regex.
 */
const splitTemplates = new Map<string, readonly string[]>();
function splitTemplate(template: string): readonly string[] {
  let parts = splitTemplates.get(template);
  if (parts === undefined) {
    parts = template.split(/\{(\w+)\}/);
    // Only a bounded set of templates is cached; a template made per call (none is) would be split every time.
    if (splitTemplates.size < 256) splitTemplates.set(template, parts);
  }
  return parts;
}

/** Puts encoded values into the `{name}` placeholders of a path template. */
export function fill(template: string, params: Readonly<Record<string, string>>): string {
  const parts = splitTemplate(template);
  let filled = parts[0]!;
  for (let i = 1; i < parts.length; i += 2) {
    const name = parts[i]!;
    const value = params[name];
    if (value === undefined) throw new TypeError(`missing path parameter ${name}`);
    filled += encodeURIComponent(value) + parts[i + 1]!;
  }
  return filled;
}
