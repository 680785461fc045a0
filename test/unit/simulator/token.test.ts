import { describe, expect, it } from 'vitest';
import { createSimulator } from '../../../src/simulator/app.ts';
import { tokenRequest } from './helpers.ts';

describe('POST /api/oauth/token/', () => {
  const sim = createSimulator();
  const good = { username: sim.seed.username, password: sim.seed.password };
  const post = (fields: Record<string, string>, contentType?: string) =>
    sim.app.request('/api/oauth/token/', tokenRequest(fields, contentType));

  it('issues a Bearer token with the documented fields for the password grant', async () => {
    const response = await post({ ...good, grant_type: 'password', format: 'json' });
    expect(response.status).toBe(200);
    expect(response.headers.get('Cache-Control')).toBe('no-store');
    const body = await response.json();
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type']);
    expect(body).toMatchObject({ expires_in: 3600, token_type: 'Bearer', scope: 'offline_access' });
    expect(body.access_token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(body.refresh_token).not.toBe(body.access_token);
  });

  it('defaults grant_type and format, and issues a different token each time', async () => {
    const first = await (await post(good)).json();
    const second = await (await post(good)).json();
    expect(first.access_token).not.toBe(second.access_token);
  });

  it('accepts a charset parameter on the form content type', async () => {
    expect((await post(good, 'application/x-www-form-urlencoded; charset=UTF-8')).status).toBe(200);
  });

  it.each([
    ['missing username', { password: 'demo-password' }, 'invalid_request'],
    ['missing password', { username: 'demo@practice.example' }, 'invalid_request'],
    ['empty password', { username: 'demo@practice.example', password: '' }, 'invalid_request'],
    ['another grant type', { ...good, grant_type: 'client_credentials' }, 'unsupported_grant_type'],
    ['another format', { ...good, format: 'xml' }, 'invalid_request'],
  ])('answers 400 for %s', async (_name, fields, error) => {
    const response = await post(fields);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error });
  });

  it('answers 400 for a JSON body', async () => {
    const response = await sim.app.request('/api/oauth/token/', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(good),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_request' });
  });

  it.each([
    ['a wrong password', { ...good, password: 'nope' }],
    ['an unknown user', { ...good, username: 'someone@else.example' }],
  ])('answers 401 invalid_grant for %s', async (_name, fields) => {
    const response = await post(fields);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('counts every token request, failed ones too', async () => {
    const fresh = createSimulator();
    await fresh.app.request('/api/oauth/token/', tokenRequest(good));
    await fresh.app.request('/api/oauth/token/', tokenRequest({ username: 'x' }));
    expect(fresh.counters.tokenRequests).toBe(2);
    expect(fresh.counters.apiRequests).toBe(2);
  });

  it('issues tokens with the lifetime set for new tokens', async () => {
    const fresh = createSimulator({ tokenLifetimeSeconds: 120 });
    expect((await (await fresh.app.request('/api/oauth/token/', tokenRequest(good))).json()).expires_in).toBe(120);
    fresh.setTokenLifetime(5);
    expect((await (await fresh.app.request('/api/oauth/token/', tokenRequest(good))).json()).expires_in).toBe(5);
  });
});
