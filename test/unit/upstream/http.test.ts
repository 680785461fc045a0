import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseRetryAfter } from '../../../src/relay/upstream/errors.ts';
import { createUpstreamHttp } from '../../../src/relay/upstream/http.ts';
import { createTokenManager } from '../../../src/relay/upstream/token-manager.ts';
import { BASE, json, tokenIssuingUpstream, type Handler, upstreamFailure } from './fake-upstream.ts';

const item = z.object({ ok: z.literal(true) });

function setup(api: Handler, timeoutMs = 1000) {
  const fake = tokenIssuingUpstream(api);
  const tokens = createTokenManager({ baseUrl: BASE, username: 'u', password: 'p', fetch: fake.fetch });
  const http = createUpstreamHttp({ baseUrl: BASE, tokens, fetch: fake.fetch, timeoutMs });
  return { fake, tokens, http };
}

describe('authorized http', () => {
  it('sends Bearer and Accept, the query and a JSON body, and parses the answer with the schema', async () => {
    const { fake, http } = setup(() => json({ ok: true, extra: 'ignored' }, 201));
    const result = await http.request('POST', '/api/things/', {
      schema: item,
      query: { a: 'x y', skip: undefined, none: null, n: 2 },
      json: { hello: 'world' },
    });
    expect(result).toEqual({ ok: true });
    const [request] = fake.apiRequests();
    expect(request?.headers.get('authorization')).toBe('Bearer tok-1');
    expect(request?.headers.get('accept')).toBe('application/json');
    expect(request?.headers.get('content-type')).toBe('application/json');
    expect(request?.url.search).toBe('?a=x+y&n=2');
    expect(JSON.parse(request?.body ?? '')).toEqual({ hello: 'world' });
  });

  it('keeps a path prefix of the base URL', async () => {
    const fake = tokenIssuingUpstream(() => json({ ok: true }));
    const tokens = createTokenManager({ baseUrl: `${BASE}/prefix/`, username: 'u', password: 'p', fetch: fake.fetch });
    const http = createUpstreamHttp({ baseUrl: `${BASE}/prefix/`, tokens, fetch: fake.fetch });
    await http.request('GET', '/api/x/', { schema: item });
    expect(fake.requests.map((r) => r.url.pathname)).toEqual(['/prefix/api/oauth/token/', '/prefix/api/x/']);
  });

  it('accepts 204 with no body', async () => {
    const { http } = setup(() => new Response(null, { status: 204 }));
    await expect(http.request('DELETE', '/api/x/', { schema: z.undefined() })).resolves.toBeUndefined();
  });

  it('on 401 invalidates the token it used, gets a new one and retries once', async () => {
    const { fake, http } = setup((r) =>
      r.headers.get('authorization') === 'Bearer tok-1' ? json({}, 401) : json({ ok: true }),
    );
    await expect(http.request('GET', '/api/x/', { schema: item })).resolves.toEqual({ ok: true });
    expect(fake.issued).toEqual(['tok-1', 'tok-2']);
    expect(fake.apiRequests().map((r) => r.headers.get('authorization'))).toEqual(['Bearer tok-1', 'Bearer tok-2']);
  });

  it('a 401 that persists ends in upstream_auth_failed after exactly one retry', async () => {
    const { fake, http } = setup(() => json({ detail: 'no' }, 401));
    const error = await upstreamFailure(http.request('GET', '/api/x/', { schema: item }));
    expect(error.code).toBe('upstream_auth_failed');
    expect(error.status).toBe(401);
    expect(fake.apiRequests()).toHaveLength(2);
    expect(fake.tokenRequests()).toHaveLength(2);
  });

  it('200 concurrent calls after a revocation: one new token, each call retried at most once', async () => {
    let valid = 'tok-1';
    const { fake, http } = setup((r) =>
      r.headers.get('authorization') === `Bearer ${valid}` ? json({ ok: true }) : json({}, 401),
    );
    await http.request('GET', '/api/warm/', { schema: item });
    valid = 'tok-2'; // revoke tok-1
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => http.request('GET', `/api/x/${i}/`, { schema: item })),
    );
    expect(results).toHaveLength(200);
    expect(fake.tokenRequests()).toHaveLength(2);
    for (let i = 0; i < 200; i++) {
      expect(fake.apiRequests().filter((r) => r.url.pathname === `/api/x/${i}/`).length).toBeLessThanOrEqual(2);
    }
  });

  it.each([
    [400, 'upstream_rejected'],
    [409, 'upstream_rejected'],
    [422, 'upstream_rejected'],
    [403, 'upstream_forbidden'],
    [404, 'upstream_not_found'],
    [429, 'upstream_rate_limited'],
    [500, 'upstream_unavailable'],
    [502, 'upstream_unavailable'],
    [503, 'upstream_unavailable'],
    [302, 'upstream_bad_response'],
  ] as const)('maps %i to %s with a fixed message', async (status, code) => {
    const { http } = setup(
      () => new Response('{"detail":"secret detail"}', { status, headers: { Location: 'http://evil.test/' } }),
    );
    const error = await upstreamFailure(
      http.request('GET', '/api/calls/', { schema: item, query: { search: 'private words' } }),
    );
    expect(error.code).toBe(code);
    expect(error.status).toBe(status);
    expect(error.message).toBe(`upstream answered ${status} for /api/calls/`);
  });

  it('passes a bounded Retry-After with 429', async () => {
    for (const [header, seconds] of [
      ['7', 7],
      ['999999', 3600],
      ['soon', undefined],
    ] as const) {
      const { http } = setup(() => json({}, 429, { 'Retry-After': header }));
      expect((await upstreamFailure(http.request('GET', '/api/x/', { schema: item }))).retryAfterSeconds).toBe(seconds);
    }
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter('Tue, 01 Jan 2030 00:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfter('Mon, 31 Dec 2029 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('Fri, 01 Jan 2100 00:00:00 GMT', now)).toBe(3600);
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it('reads no Retry-After longer than any date or delay worth reading, before any pattern sees it', () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(parseRetryAfter(`  ${'9'.repeat(64)}  `, now)).toBe(3600);
    expect(parseRetryAfter('9'.repeat(65), now)).toBeUndefined();
    expect(parseRetryAfter(`Tue,${' '.repeat(40)}01 Jan 2030 00:00:30 GMT`, now)).toBeUndefined();
  });

  it('maps a rejected fetch to upstream_unavailable', async () => {
    const { http } = setup(() => {
      throw new TypeError('fetch failed');
    });
    expect((await upstreamFailure(http.request('GET', '/api/x/', { schema: item }))).code).toBe('upstream_unavailable');
  });

  it('maps a slow answer to upstream_timeout', async () => {
    const { http } = setup(() => new Promise<Response>(() => {}), 50);
    const error = await upstreamFailure(http.request('GET', '/api/x/', { schema: item }));
    expect(error.code).toBe('upstream_timeout');
    expect(error.message).toBe('upstream timed out for /api/x/');
  });

  it("rethrows a caller's own abort instead of calling it an upstream failure", async () => {
    const { http } = setup(() => new Promise<Response>(() => {}));
    const controller = new AbortController();
    const pending = http.request('GET', '/api/x/', { schema: item, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('caller gave up')), 10);
    await expect(pending).rejects.toThrow('caller gave up');
  });

  it.each([
    ['not JSON', () => new Response('<html>', { status: 200 })],
    ['wrong shape', () => json({ ok: 'yes' })],
    ['empty 200', () => new Response('', { status: 200 })],
  ])('maps %s to upstream_bad_response', async (_name, answer) => {
    const { http } = setup(answer);
    expect((await upstreamFailure(http.request('GET', '/api/x/', { schema: item }))).code).toBe(
      'upstream_bad_response',
    );
  });

  it('getAbsolute follows same-origin links only; another origin gets no request and no token', async () => {
    const { fake, http } = setup(() => json({ ok: true }));
    await expect(http.getAbsolute(`${BASE}/api/x/?page=2`, item)).resolves.toEqual({ ok: true });
    for (const link of [
      'http://evil.test/api/x/?page=2',
      'https://upstream.test/api/x/',
      'http://upstream.test:8080/x',
      '//evil.test/x',
      'http://[bad',
    ]) {
      const error = await upstreamFailure(http.getAbsolute(link, item));
      expect(error.code).toBe('upstream_bad_response');
    }
    expect(fake.requests.every((r) => r.url.origin === BASE)).toBe(true);
  });
});
