// DEMO_PAGES: the index page, /try and the demo page (with its assets) are tools for whoever runs the relay. They
// are on in development (npm start, the tests) and off in production unless the setting turns them on; off, they
// answer 404 as if they did not exist, and everything a practice's page needs is still served.
import { afterEach, describe, expect, it } from 'vitest';
import { readSettings, SettingsError } from '../../../src/relay/settings.ts';
import { createRelayHarness, RELAY_ORIGIN } from './relay-harness.ts';

const secret = () => new Uint8Array(32).fill(1);
const PRODUCTION = {
  HANDLE_SECRET: 'pZyV4QI7H4v0fJ+2mQ9sLk3XwB8rT1nE6cYdA5uGh0o=',
  PUBLIC_ORIGIN: 'https://chat.practice.example',
  UPSTREAM_URL: 'https://api.example.com',
  UPSTREAM_USERNAME: 'u',
  UPSTREAM_PASSWORD: 'p',
};
const DEMO_PATHS = [
  '/',
  '/try',
  '/try?client_id=demo-client',
  '/demo',
  '/demo/',
  '/assets/demo-fixture.js',
  '/frame?client_id=demo-client&preview=1',
];

let harness: ReturnType<typeof createRelayHarness> | undefined;
afterEach(() => harness?.close());

describe('the DEMO_PAGES setting', () => {
  it('is off in production and on in development unless set', () => {
    expect(readSettings({ NODE_ENV: 'production', ...PRODUCTION }, secret).demoPages).toBe(false);
    expect(readSettings({ ...PRODUCTION }, secret).demoPages).toBe(false);
    expect(readSettings({ NODE_ENV: 'production', ...PRODUCTION, DEMO_PAGES: 'true' }, secret).demoPages).toBe(true);
    expect(readSettings({ NODE_ENV: 'development' }, secret).demoPages).toBe(true);
    expect(readSettings({ NODE_ENV: 'test' }, secret).demoPages).toBe(true);
    expect(readSettings({ NODE_ENV: 'development', DEMO_PAGES: 'false' }, secret).demoPages).toBe(false);
    expect(readSettings({ NODE_ENV: 'development', DEMO_PAGES: '0' }, secret).demoPages).toBe(false);
  });

  it('refuses a value that is not true or false, naming it', () => {
    expect(() => readSettings({ NODE_ENV: 'development', DEMO_PAGES: 'maybe' }, secret)).toThrow(SettingsError);
    expect(() => readSettings({ NODE_ENV: 'development', DEMO_PAGES: 'maybe' }, secret)).toThrow('DEMO_PAGES');
  });
});

describe('a relay without demo pages', () => {
  it.each(DEMO_PATHS)('answers 404 for %s', async (path) => {
    harness = createRelayHarness({ environment: { DEMO_PAGES: 'false' } });
    const response = await harness.app.request(`${RELAY_ORIGIN}${path}`);
    expect(response.status).toBe(404);
    expect(await response.text()).toBe('Not found.');
  });

  it("still serves what a practice's page needs: the loader, the frame and its assets, the configuration, health", async () => {
    harness = createRelayHarness({ environment: { DEMO_PAGES: 'false' } });
    for (const path of [
      '/loader.js',
      '/assets/frame-fixture.js',
      '/assets/frame-fixture.css',
      '/frame?client_id=demo-client',
      '/v1/webchat-configuration?client_id=demo-client',
      '/healthz',
    ]) {
      expect((await harness.app.request(`${RELAY_ORIGIN}${path}`)).status, path).toBe(200);
    }
  });
});

describe('a relay with demo pages (development)', () => {
  it.each(DEMO_PATHS)('serves %s', async (path) => {
    harness = createRelayHarness();
    const response = await harness.app.request(`${RELAY_ORIGIN}${path}`);
    expect(response.status).toBe(path === '/demo' ? 301 : 200);
  });

  it("serves the preview frame with its relaxed policy (the relay's own pages may frame it, any https: image)", async () => {
    harness = createRelayHarness();
    const response = await harness.app.request(`${RELAY_ORIGIN}/frame?client_id=demo-client&preview=1`);
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Security-Policy')).toMatch(/frame-ancestors 'self'/);
    expect(response.headers.get('Content-Security-Policy')).toMatch(/img-src[^;]*https:/);
  });
});
