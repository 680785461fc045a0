import { describe, expect, it } from 'vitest';
import { authedSimulator } from './helpers.ts';

const DOCUMENTED_FIELDS = [
  'id',
  'practice',
  'webchat_domains',
  'logo_signed_url',
  'webchat_icon_color',
  'webchat_icon_opacity',
  'google_tag_id',
  'is_active',
  'aimee_bot_name',
].sort();

const path = (clientId: string) => `/api/conversations/webchat-configuration/?client_id=${clientId}&format=json`;

describe('GET /api/conversations/webchat-configuration/', async () => {
  let clock = 1_750_000_000_000;
  const { sim, request } = await authedSimulator({ now: () => clock, logoUrlLifetimeSeconds: 900 });

  it('answers exactly the documented fields, id equal to the client_id', async () => {
    const response = await request(path('demo-client'));
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(Object.keys(body).sort()).toEqual(DOCUMENTED_FIELDS);
    expect(body).toMatchObject({
      id: 'demo-client',
      practice: sim.seed.grantedPracticeId,
      webchat_icon_color: '#0f766e',
      webchat_icon_opacity: 100,
      google_tag_id: '',
      is_active: true,
      aimee_bot_name: 'Aimee',
    });
    expect(body.webchat_domains.map((d: { domain: string }) => d.domain)).toEqual(['localhost', '127.0.0.1']);
    for (const entry of body.webchat_domains) {
      expect(Object.keys(entry).sort()).toEqual(['domain', 'id']);
      expect(typeof entry.id).toBe('string');
    }
    expect(body.logo_signed_url).toMatch(/^http:\/\/localhost\/media\/logo\.svg\?expires=\d+&signature=[0-9a-f]{64}$/);
  });

  it('accepts a request without format (json is the default)', async () => {
    expect((await request('/api/conversations/webchat-configuration/?client_id=demo-client')).status).toBe(200);
  });

  it.each([
    [
      'smile-dental',
      { is_active: true, webchat_icon_color: '#1d4ed8', webchat_icon_opacity: 90, aimee_bot_name: 'Sunny' },
    ],
    ['demo-inactive', { is_active: false }],
    ['demo-empty-color', { webchat_icon_color: '', webchat_icon_opacity: 0, google_tag_id: '' }],
    [
      'demo-hostile',
      {
        webchat_icon_color: 'red;background:url(https://evil.example/x)',
        webchat_icon_opacity: 250,
        aimee_bot_name: '  <img src=x onerror=alert(1)>Aimee  ',
        google_tag_id: 'javascript:alert(1)',
        logo_signed_url: 'javascript:alert(1)',
      },
    ],
  ])('serves the seeded %s configuration', async (clientId, expected) => {
    const body = await (await request(path(clientId))).json();
    expect(Object.keys(body).sort()).toEqual(DOCUMENTED_FIELDS);
    expect(body).toMatchObject({ id: clientId, ...expected });
  });

  it('seeds the domain lists of docs/simulator.md', async () => {
    const domains = async (clientId: string) =>
      (await (await request(path(clientId))).json()).webchat_domains.map((d: { domain: string }) => d.domain);
    expect(await domains('smile-dental')).toEqual([
      'www.smile-dental.test',
      '*.smile-dental.test',
      'localhost',
      '127.0.0.1',
    ]);
    expect(await domains('demo-hostile')).toEqual([
      'https://evil.example/path',
      '*',
      '203.0.113.7',
      'foo.*.example.com',
      'Smile-Dental.TEST.',
      '*.smile-dental.test',
    ]);
  });

  it('answers 403 for the configuration of the other practice', async () => {
    const response = await request(path('demo-other-practice'));
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ code: 'permission_denied' });
  });

  it('answers 404 for an unknown client_id and 400 without one or with another format', async () => {
    const unknown = await request(path('no-such-client'));
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ code: 'not_found' });
    expect((await request('/api/conversations/webchat-configuration/')).status).toBe(400);
    expect((await request('/api/conversations/webchat-configuration/?client_id=&format=json')).status).toBe(400);
    expect((await request('/api/conversations/webchat-configuration/?client_id=demo-client&format=api')).status).toBe(
      400,
    );
  });

  describe('signed logo URL', () => {
    const logoUrl = async (base = 'http://localhost') => {
      const response = await request(path('demo-client'));
      const url = new URL((await response.json()).logo_signed_url);
      expect(url.origin).toBe(new URL(base).origin);
      return url;
    };

    it('loads a real SVG while fresh', async () => {
      const url = await logoUrl();
      const response = await sim.app.request(url.pathname + url.search);
      expect(response.status).toBe(200);
      expect(response.headers.get('Content-Type')).toBe('image/svg+xml');
      expect(response.headers.get('Cache-Control')).toBe('private, max-age=900');
      expect(await response.text()).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[\s\S]*<\/svg>$/);
    });

    it('is built on the origin of the request', async () => {
      const response = await sim.fetch(`http://upstream.test:4321${path('demo-client')}`, {
        headers: { Authorization: `Bearer ${await freshToken()}` },
      });
      expect((await response.json()).logo_signed_url).toMatch(/^http:\/\/upstream\.test:4321\/media\/logo\.svg\?/);
    });

    async function freshToken(): Promise<string> {
      const response = await sim.app.request('/api/oauth/token/', {
        method: 'POST',
        body: new URLSearchParams({ username: sim.seed.username, password: sim.seed.password }),
      });
      return (await response.json()).access_token;
    }

    it('answers 403 once expired on the simulator clock', async () => {
      const url = await logoUrl();
      clock += 899_000;
      expect((await sim.app.request(url.pathname + url.search)).status).toBe(200);
      clock += 1_000;
      const expired = await sim.app.request(url.pathname + url.search);
      expect(expired.status).toBe(403);
      expect(expired.headers.get('Content-Type')).toMatch(/^text\/plain/);
    });

    it('answers 403 for a tampered signature or expiry, or none at all', async () => {
      const url = await logoUrl();
      const signature = url.searchParams.get('signature') ?? '';
      const tampered = new URL(url);
      tampered.searchParams.set('signature', (signature[0] === 'a' ? 'b' : 'a') + signature.slice(1));
      expect((await sim.app.request(tampered.pathname + tampered.search)).status).toBe(403);
      const extended = new URL(url);
      extended.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
      expect((await sim.app.request(extended.pathname + extended.search)).status).toBe(403);
      expect((await sim.app.request('/media/logo.svg')).status).toBe(403);
    });

    it('does not accept a signature made with another secret', async () => {
      const other = await authedSimulator({ logoSecret: 'another-secret' });
      const url = new URL((await (await other.request(path('demo-client'))).json()).logo_signed_url);
      expect((await other.sim.app.request(url.pathname + url.search)).status).toBe(200);
      expect((await sim.app.request(url.pathname + url.search)).status).toBe(403);
    });
  });
});
