import { describe, expect, it } from 'vitest';
import { createSimulator } from '../../../src/simulator/app.ts';
import { accessToken } from './helpers.ts';

describe('Bearer authentication', () => {
  async function setup() {
    let clock = 1_750_000_000_000;
    const sim = createSimulator({ now: () => clock, tokenLifetimeSeconds: 60 });
    const token = await accessToken(sim);
    const get = (authorization?: string) =>
      sim.app.request('/api/calls/', authorization === undefined ? {} : { headers: { Authorization: authorization } });
    return { sim, token, get, advance: (ms: number) => (clock += ms) };
  }

  async function expect401(response: Response, code: string) {
    expect(response.status).toBe(401);
    expect(response.headers.get('WWW-Authenticate')).toBe('Bearer');
    expect(await response.json()).toMatchObject({ code, detail: expect.any(String) });
  }

  it('accepts exactly "Bearer <token>"', async () => {
    const { token, get } = await setup();
    expect((await get(`Bearer ${token}`)).status).toBe(200);
  });

  it('answers 401 not_authenticated without an Authorization header', async () => {
    const { get } = await setup();
    await expect401(await get(), 'not_authenticated');
  });

  it.each([
    ['lower-case scheme', (t: string) => `bearer ${t}`],
    ['two spaces', (t: string) => `Bearer  ${t}`],
    ['no scheme', (t: string) => t],
    ['another scheme', (t: string) => `Token ${t}`],
    ['trailing text', (t: string) => `Bearer ${t} extra`],
    ['empty token', () => 'Bearer '],
  ])('answers 401 not_authenticated for a malformed header (%s)', async (_name, header) => {
    const { token, get } = await setup();
    await expect401(await get(header(token)), 'not_authenticated');
  });

  it('answers 401 token_invalid for an unknown token', async () => {
    const { get } = await setup();
    await expect401(await get('Bearer not-a-token-we-issued'), 'token_invalid');
  });

  it('answers 401 token_invalid once the token has expired on the simulator clock', async () => {
    const { token, get, advance } = await setup();
    advance(59_000);
    expect((await get(`Bearer ${token}`)).status).toBe(200);
    advance(1_000);
    await expect401(await get(`Bearer ${token}`), 'token_invalid');
  });

  it('answers 401 token_invalid after revokeAllTokens, and a new token works', async () => {
    const { sim, token, get } = await setup();
    sim.revokeAllTokens();
    await expect401(await get(`Bearer ${token}`), 'token_invalid');
    expect((await get(`Bearer ${await accessToken(sim)}`)).status).toBe(200);
  });

  it('secures every API endpoint except the token request', async () => {
    const { sim } = await setup();
    const secured: Array<[string, string]> = [
      ['GET', '/api/calls/'],
      ['GET', '/api/conversations/webchat-configuration/?client_id=demo-client&format=json'],
      ['GET', '/api/conversations/'],
      ['POST', '/api/conversations/'],
      ['GET', '/api/conversations/cnv_x/'],
      ['PATCH', '/api/conversations/cnv_x/'],
      ['POST', '/api/conversations/cnv_x/messages/'],
      ['GET', '/api/conversations/cnv_x/messages/'],
      ['POST', '/api/conversations/cnv_x/agent-mode/'],
      ['POST', '/api/conversations/cnv_x/escalate/'],
      ['POST', '/api/conversations/cnv_x/resolve/'],
      ['GET', '/api/conversations/cnv_x/patients/'],
      ['POST', '/api/conversations/cnv_x/patients/'],
      ['DELETE', '/api/conversations/cnv_x/patients/p1/'],
    ];
    for (const [method, path] of secured) {
      expect((await sim.app.request(path, { method })).status, `${method} ${path}`).toBe(401);
    }
  });

  it('keeps tokens per instance', async () => {
    const { token } = await setup();
    const other = createSimulator();
    expect((await other.app.request('/api/calls/', { headers: { Authorization: `Bearer ${token}` } })).status).toBe(
      401,
    );
  });
});
