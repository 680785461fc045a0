import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_ICON_COLOR } from '../../../src/shared/configuration.ts';
import { createRelayHarness, RELAY_ORIGIN } from './relay-harness.ts';

let harness: ReturnType<typeof createRelayHarness>;
afterEach(() => harness?.close());

const getConfiguration = (clientId: string) =>
  harness.app.request(`${RELAY_ORIGIN}/v1/webchat-configuration?client_id=${clientId}`);

describe('GET /v1/webchat-configuration', () => {
  it('answers the normalised configuration, readable by any origin and never stored', async () => {
    harness = createRelayHarness();
    const response = await getConfiguration('demo-client');
    expect(response.status).toBe(200);
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(response.headers.get('Cache-Control')).toBe('no-store');
    const body = await response.json();
    expect(body).toMatchObject({
      client_id: 'demo-client',
      is_active: true,
      domains: ['localhost', '127.0.0.1'],
      icon_color: '#0f766e',
      icon_opacity: 100,
      bot_name: 'Aimee',
      google_tag_id: null,
    });
    expect(body.logo_url).toMatch(/^http:\/\/relay\.test\/v1\/logo\?client_id=demo-client&v=[A-Za-z0-9_-]{22}$/);
    expect(Object.keys(body).sort()).toEqual([
      'bot_name',
      'client_id',
      'domains',
      'google_tag_id',
      'icon_color',
      'icon_opacity',
      'is_active',
      'launcher',
      'logo_url',
    ]);
  });

  it('adds what the loader draws, computed with the shared rules: accent, readable glyph colour, opacity, label', async () => {
    harness = createRelayHarness();
    const seeded = await (await getConfiguration('smile-dental')).json();
    // #1d4ed8 at 90 %: light text reads on it.
    expect(seeded.launcher).toEqual({
      background: '#1d4ed8',
      color: '#ffffff',
      opacity: 0.9,
      label: 'Chat with Sunny',
      locale: 'en',
      dir: 'ltr',
    });
    const hostile = await (await getConfiguration('demo-hostile')).json();
    // The hostile values were normalised first, so the launcher gets the defaults, never the raw text.
    expect(hostile.launcher).toEqual({
      background: DEFAULT_ICON_COLOR,
      color: '#ffffff',
      opacity: 1,
      label: 'Chat with Aimee',
      locale: 'en',
      dir: 'ltr',
    });
  });

  it("writes the launcher's label in the visitor's language: data-locale (`locale`) first, else Accept-Language", async () => {
    harness = createRelayHarness();
    const launcherFor = async (query: string, acceptLanguage?: string) => {
      const response = await harness.app.request(
        `${RELAY_ORIGIN}/v1/webchat-configuration?client_id=smile-dental${query}`,
        {
          headers: acceptLanguage ? { 'Accept-Language': acceptLanguage } : {},
        },
      );
      expect(response.headers.get('Vary')).toContain('Accept-Language');
      return (await response.json()).launcher;
    };
    expect(await launcherFor('&locale=es-MX', 'de-DE,de;q=0.9')).toMatchObject({
      label: 'Chatear con Sunny',
      locale: 'es',
      dir: 'ltr',
    });
    expect(await launcherFor('&locale=', 'nl, zh-TW;q=0.8, en;q=0.5')).toMatchObject({
      label: '與 Sunny 聊天',
      locale: 'zh-Hant',
    });
    expect(await launcherFor('&locale=nl', 'fa-IR')).toMatchObject({
      label: 'گفتگو با \u2068Sunny\u2069',
      locale: 'fa',
      dir: 'rtl',
    });
    expect(await launcherFor('&locale=pt')).toMatchObject({ locale: 'pt-BR' });
    expect(await launcherFor('&locale=%22%3E%3Cb%3E')).toMatchObject({
      label: 'Chat with Sunny',
      locale: 'en',
      dir: 'ltr',
    });
  });

  it("normalises every hostile value (the relay issue's table)", async () => {
    harness = createRelayHarness();
    const body = await (await getConfiguration('demo-hostile')).json();
    expect(body).toMatchObject({
      icon_color: DEFAULT_ICON_COLOR,
      icon_opacity: 100,
      bot_name: 'Aimee',
      google_tag_id: null,
      logo_url: null,
      domains: ['smile-dental.test', '*.smile-dental.test'],
    });
  });

  it('keeps awkward but valid values: empty colour becomes the default, opacity 0 stays 0', async () => {
    harness = createRelayHarness();
    const body = await (await getConfiguration('demo-empty-color')).json();
    expect(body).toMatchObject({ icon_color: DEFAULT_ICON_COLOR, icon_opacity: 0, google_tag_id: null });
  });

  it('drops http logos outside development', async () => {
    harness = createRelayHarness({
      environment: {
        NODE_ENV: 'production',
        HANDLE_SECRET: 'pZyV4QI7H4v0fJ+2mQ9sLk3XwB8rT1nE6cYdA5uGh0o=',
        PUBLIC_ORIGIN: 'https://chat.practice.example',
        UPSTREAM_URL: 'https://api.example.com',
        UPSTREAM_USERNAME: 'u',
        UPSTREAM_PASSWORD: 'p',
      },
    });
    expect((await (await getConfiguration('demo-client')).json()).logo_url).toBeNull();
  });

  it.each([
    ['an unknown client_id', 'nobody-here', 404, 'not_found'],
    ['a configuration of a practice the account cannot see', 'demo-other-practice', 404, 'not_found'],
    ['a missing client_id', '', 400, 'bad_request'],
    ['a malformed client_id', '..%2Fetc', 400, 'bad_request'],
  ])('refuses %s with a coded error', async (_why, clientId, status, code) => {
    harness = createRelayHarness();
    const response = await getConfiguration(clientId);
    expect(response.status).toBe(status);
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(await response.json()).toEqual({ error: { code, message: expect.any(String) } });
  });

  it('asks upstream once per client_id while the cache is fresh, also for many callers at once', async () => {
    harness = createRelayHarness();
    await Promise.all(Array.from({ length: 20 }, () => getConfiguration('demo-client')));
    await getConfiguration('demo-client');
    const configurationRequests = harness.simulator.counters.apiRequests - harness.simulator.counters.tokenRequests;
    expect(configurationRequests).toBe(1);
  });

  it('asks again once the cache has expired', async () => {
    let clock = Date.now();
    harness = createRelayHarness({ now: () => clock, environment: { CONFIG_CACHE_SECONDS: '10' } });
    await getConfiguration('demo-client');
    const before = harness.simulator.counters.apiRequests;
    clock += 11_000;
    await getConfiguration('demo-client');
    expect(harness.simulator.counters.apiRequests).toBeGreaterThan(before);
  });

  it('answers 503 upstream_unavailable with Retry-After when upstream fails', async () => {
    harness = createRelayHarness();
    harness.simulator.faults.set({ errorRate: 1 });
    const response = await getConfiguration('demo-client');
    expect(response.status).toBe(503);
    expect(Number(response.headers.get('Retry-After'))).toBeGreaterThan(0);
    expect((await response.json()).error.code).toBe('upstream_unavailable');
  });

  it('does not cache a failure: once upstream recovers, the next request succeeds', async () => {
    harness = createRelayHarness();
    harness.simulator.faults.set({ errorRate: 1, match: /webchat-configuration/ });
    expect((await getConfiguration('demo-client')).status).toBe(503);
    harness.simulator.faults.reset();
    expect((await getConfiguration('demo-client')).status).toBe(200);
  });

  it('does not hang past its deadline when upstream is slow', async () => {
    harness = createRelayHarness({ environment: { REQUEST_DEADLINE_MS: '300', UPSTREAM_TIMEOUT_MS: '5000' } });
    harness.simulator.faults.set({ latencyMs: 2_000 });
    const response = await getConfiguration('demo-client');
    expect(response.status).toBe(504);
    expect(response.headers.get('Retry-After')).not.toBeNull();
    expect((await response.json()).error.code).toBe('upstream_timeout');
  });
});
