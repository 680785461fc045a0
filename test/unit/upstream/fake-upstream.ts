import { UpstreamError } from '../../../src/relay/upstream/errors.ts';
import { expect } from 'vitest';
// A tiny scripted upstream for unit tests: a fetch function that records every request and answers through a
// handler. No module mocks: the client gets this fetch injected.
import type { FetchLike } from '../../../src/relay/upstream/transport.ts';

export interface RecordedRequest {
  method: string;
  url: URL;
  headers: Headers;
  body: string;
}

export type Handler = (request: RecordedRequest) => Response | Promise<Response>;

export interface FakeUpstream {
  fetch: FetchLike;
  requests: RecordedRequest[];
  tokenRequests(): RecordedRequest[];
  apiRequests(): RecordedRequest[];
}

export const BASE = 'http://upstream.test';

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
}

export function tokenBody(token: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    access_token: token,
    refresh_token: 'r',
    expires_in: 3600,
    token_type: 'Bearer',
    scope: 'offline_access',
    ...extra,
  };
}

export function fakeUpstream(handler: Handler): FakeUpstream {
  const requests: RecordedRequest[] = [];
  const fetch: FetchLike = async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const request: RecordedRequest = {
      method: init?.method ?? 'GET',
      url,
      headers: new Headers(init?.headers),
      body: typeof init?.body === 'string' ? init.body : '',
    };
    requests.push(request);
    const signal = init?.signal;
    if (signal?.aborted) throw signal.reason;
    // Honour the abort signal like a real fetch, so that timeouts can be tested against a slow handler.
    return await new Promise<Response>((resolve, reject) => {
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      Promise.resolve()
        .then(() => handler(request))
        .then(resolve, reject);
    });
  };
  const isToken = (r: RecordedRequest) => r.url.pathname.endsWith('/api/oauth/token/');
  return {
    fetch,
    requests,
    tokenRequests: () => requests.filter(isToken),
    apiRequests: () => requests.filter((r) => !isToken(r)),
  };
}

/** A fake that issues numbered tokens and lets a route handler decide API answers. */
export function tokenIssuingUpstream(
  api: Handler,
  tokenExtra: Record<string, unknown> = {},
): FakeUpstream & { issued: string[] } {
  const issued: string[] = [];
  const fake = fakeUpstream((request) => {
    if (request.url.pathname.endsWith('/api/oauth/token/')) {
      const token = `tok-${issued.length + 1}`;
      issued.push(token);
      return json(tokenBody(token, tokenExtra));
    }
    return api(request);
  });
  return Object.assign(fake, { issued });
}

/** The UpstreamError a promise rejects with; fails the test if it resolves or rejects with anything else. */
export async function upstreamFailure(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UpstreamError);
  return error as UpstreamError;
}
