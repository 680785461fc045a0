import { describe, expect, it } from 'vitest';
import { lifetimeSeconds, refreshAfterMs } from '../../../src/relay/upstream/lifetime.ts';
import { createTokenManager } from '../../../src/relay/upstream/token-manager.ts';
import { BASE, fakeUpstream, json, tokenBody, upstreamFailure } from './fake-upstream.ts';

function clock(start = 1_000_000) {
  let t = start;
  return {
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
  };
}

function issuing(extra: Record<string, unknown> = {}) {
  let n = 0;
  return fakeUpstream(() => json(tokenBody(`tok-${++n}`, extra)));
}

describe('token manager', () => {
  it('sends the documented form-encoded password grant', async () => {
    const fake = issuing();
    const tokens = createTokenManager({ baseUrl: BASE, username: 'u@x.example', password: 'p&w=d', fetch: fake.fetch });
    await expect(tokens.getToken()).resolves.toBe('tok-1');
    const [request] = fake.requests;
    expect(request?.method).toBe('POST');
    expect(request?.url.href).toBe(`${BASE}/api/oauth/token/`);
    expect(request?.headers.get('content-type')).toBe('application/x-www-form-urlencoded');
    const form = new URLSearchParams(request?.body);
    expect(Object.fromEntries(form)).toEqual({
      username: 'u@x.example',
      password: 'p&w=d',
      grant_type: 'password',
      format: 'json',
    });
  });

  it('makes exactly one token request for 1,000 concurrent cold calls', async () => {
    const fake = issuing();
    const tokens = createTokenManager({ baseUrl: BASE, username: 'u', password: 'p', fetch: fake.fetch });
    const all = await Promise.all(Array.from({ length: 1000 }, () => tokens.getToken()));
    expect(new Set(all)).toEqual(new Set(['tok-1']));
    expect(fake.requests).toHaveLength(1);
  });

  it('caches the token and refreshes it before expiry', async () => {
    const c = clock();
    const fake = issuing({ expires_in: 3600 });
    const tokens = createTokenManager({ baseUrl: BASE, username: 'u', password: 'p', fetch: fake.fetch, now: c.now });
    expect(await tokens.getToken()).toBe('tok-1');
    c.advance(3540_000 - 1); // lifetime minus min(60 s, 20 %)
    expect(await tokens.getToken()).toBe('tok-1');
    c.advance(1);
    expect(await tokens.getToken()).toBe('tok-2');
    expect(fake.requests).toHaveLength(2);
  });

  it.each([
    ['missing', undefined, 60],
    ['non-numeric', 'abc', 60],
    ['zero', 0, 60],
    ['negative', -5, 60],
    ['absurd', 1e12, 86_400],
    ['fractional', 3.5, 3.5],
    ['numeric string', '120', 120],
    ['null', null, 60],
    ['object', { s: 1 }, 60],
  ])('bounds expires_in %s (%j) and refreshes before that lifetime ends', async (_name, expiresIn, lifetime) => {
    expect(lifetimeSeconds(expiresIn)).toBe(lifetime);
    const c = clock();
    const extra: Record<string, unknown> = expiresIn === undefined ? {} : { expires_in: expiresIn };
    let n = 0;
    const fake = fakeUpstream(() => {
      const body = tokenBody(`tok-${++n}`, extra);
      if (expiresIn === undefined) delete body.expires_in;
      return json(body);
    });
    const tokens = createTokenManager({ baseUrl: BASE, username: 'u', password: 'p', fetch: fake.fetch, now: c.now });
    expect(await tokens.getToken()).toBe('tok-1');
    const refreshAt = refreshAfterMs(lifetime);
    expect(refreshAt).toBeGreaterThan(0);
    expect(refreshAt).toBeLessThan(lifetime * 1000);
    c.advance(refreshAt - 1);
    expect(await tokens.getToken()).toBe('tok-1');
    c.advance(1);
    expect(await tokens.getToken()).toBe('tok-2');
  });

  it('validates the token response: no access_token is a bad response', async () => {
    for (const body of [{ expires_in: 60 }, { access_token: '' }, { access_token: 42 }, 'not json']) {
      const fake = fakeUpstream(() => (typeof body === 'string' ? new Response(body, { status: 200 }) : json(body)));
      const tokens = createTokenManager({ baseUrl: BASE, username: 'u', password: 'p', fetch: fake.fetch });
      expect((await upstreamFailure(tokens.getToken())).code).toBe('upstream_bad_response');
    }
  });

  it.each([400, 401])('maps %i from the token endpoint to upstream_auth_failed', async (status) => {
    const fake = fakeUpstream(() => json({ error: 'invalid_grant' }, status));
    const tokens = createTokenManager({ baseUrl: BASE, username: 'u', password: 'p', fetch: fake.fetch });
    const error = await upstreamFailure(tokens.getToken());
    expect(error.code).toBe('upstream_auth_failed');
    expect(error.status).toBe(status);
  });

  it('invalidate(token) forgets only that token', async () => {
    const fake = issuing();
    const tokens = createTokenManager({ baseUrl: BASE, username: 'u', password: 'p', fetch: fake.fetch });
    const old = await tokens.getToken();
    tokens.invalidate(old);
    const fresh = await tokens.getToken();
    expect(fresh).toBe('tok-2');
    tokens.invalidate(old); // a late 401 for the old token
    expect(await tokens.getToken()).toBe(fresh);
    expect(fake.requests).toHaveLength(2);
  });

  it('backs off after failures without requests, doubling up to a cap, and resets on success', async () => {
    const c = clock();
    let accept = false;
    const fake = fakeUpstream(() => (accept ? json(tokenBody('good')) : json({ error: 'invalid_grant' }, 401)));
    const tokens = createTokenManager({
      baseUrl: BASE,
      username: 'u',
      password: 'wrong',
      fetch: fake.fetch,
      now: c.now,
    });

    const first = await upstreamFailure(tokens.getToken());
    expect(first.code).toBe('upstream_auth_failed');
    expect(fake.requests).toHaveLength(1);
    // Inside the window: same coded error, no request.
    expect((await upstreamFailure(tokens.getToken())).code).toBe('upstream_auth_failed');
    // Each window: one tick short of it, no request; at its end, exactly one; then twice as long, capped at 60 s.
    let window = 1000;
    for (let i = 0; i < 9; i++) {
      const count = fake.requests.length;
      c.advance(window - 1);
      await upstreamFailure(tokens.getToken());
      expect(fake.requests).toHaveLength(count);
      c.advance(1);
      await upstreamFailure(tokens.getToken());
      expect(fake.requests).toHaveLength(count + 1);
      window = Math.min(window * 2, 60_000);
    }
    expect(window).toBe(60_000);

    c.advance(60_000);
    accept = true;
    expect(await tokens.getToken()).toBe('good');
    // Reset: the next failure waits 1 s again.
    tokens.invalidate('good');
    accept = false;
    await upstreamFailure(tokens.getToken());
    const before = fake.requests.length;
    c.advance(1000);
    await upstreamFailure(tokens.getToken());
    expect(fake.requests.length).toBe(before + 1);
  });

  it('keeps using a still-valid token when an early refresh fails', async () => {
    const c = clock();
    let fail = false;
    const fake = fakeUpstream(() => (fail ? json({}, 503) : json(tokenBody('tok', { expires_in: 100 }))));
    const tokens = createTokenManager({ baseUrl: BASE, username: 'u', password: 'p', fetch: fake.fetch, now: c.now });
    await tokens.getToken();
    fail = true;
    c.advance(90_000); // past the refresh point (80 s), before expiry (100 s)
    expect(await tokens.getToken()).toBe('tok');
    expect(await tokens.getToken()).toBe('tok'); // inside the backoff window: no new request
    expect(fake.requests).toHaveLength(2);
    c.advance(10_000); // expired now
    expect((await upstreamFailure(tokens.getToken())).code).toBe('upstream_unavailable');
  });

  it('reports its state from memory: none yet, valid, failing since the first failure, then valid again', async () => {
    const c = clock();
    let fail = false;
    const fake = fakeUpstream(() => (fail ? json({}, 503) : json(tokenBody('tok', { expires_in: 100 }))));
    const tokens = createTokenManager({ baseUrl: BASE, username: 'u', password: 'p', fetch: fake.fetch, now: c.now });
    expect(tokens.state()).toEqual({ state: 'none' });
    await tokens.getToken();
    const issuedAt = c.now();
    expect(tokens.state()).toEqual({ state: 'valid', expiresAt: issuedAt + 100_000 });
    fail = true;
    c.advance(90_000); // the early refresh fails, the token still serves: still valid
    await tokens.getToken();
    expect(tokens.state()).toMatchObject({ state: 'valid' });
    const firstFailure = c.now();
    c.advance(10_000); // expired, inside the backoff window
    expect(tokens.state()).toEqual({ state: 'failing', since: firstFailure, retryAt: firstFailure + 1000 });
    await upstreamFailure(tokens.getToken()); // the next window's request fails too: `since` stays the first failure
    expect(tokens.state()).toEqual({ state: 'failing', since: firstFailure, retryAt: c.now() + 2000 });
    const requests = fake.requests.length;
    for (let i = 0; i < 5; i++) tokens.state();
    expect(fake.requests).toHaveLength(requests); // asking the state never calls upstream
    fail = false;
    c.advance(2000);
    await tokens.getToken();
    expect(tokens.state()).toMatchObject({ state: 'valid' });
    tokens.invalidate('tok'); // refused by upstream: forgotten, the next request fetches a new one
    expect(tokens.state()).toEqual({ state: 'none' });
  });

  it('maps a slow token endpoint to upstream_timeout', async () => {
    const fake = fakeUpstream(() => new Promise<Response>(() => {}));
    const tokens = createTokenManager({
      baseUrl: BASE,
      username: 'u',
      password: 'p',
      fetch: fake.fetch,
      timeoutMs: 30,
    });
    expect((await upstreamFailure(tokens.getToken())).code).toBe('upstream_timeout');
  });
});
