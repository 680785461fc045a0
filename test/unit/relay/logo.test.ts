// The logo through the relay: fetched by the relay without credentials, checked by its bytes, served from the relay's
// origin with safe headers, and kept past the signed URL's expiry while following the configuration's refresh.
import { afterEach, describe, expect, it } from 'vitest';
import { LOGO_SVG } from '../../../src/simulator/logo.ts';
import type { LogoImage } from '../../../src/simulator/logo.ts';
import { createRelayHarness, RELAY_ORIGIN } from './relay-harness.ts';

let harness: ReturnType<typeof createRelayHarness>;
afterEach(() => harness?.close());

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
const HOSTILE_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><script>alert(1)</script><rect width="10" height="10"/></svg>';

function start(options: { logoImage?: LogoImage; clock?: { now: number } } = {}) {
  const clock = options.clock;
  harness = createRelayHarness({
    simulator: {
      ...(options.logoImage ? { logoImage: options.logoImage } : {}),
      ...(clock ? { now: () => clock.now } : {}),
      logoUrlLifetimeSeconds: 60,
    },
    ...(clock ? { now: () => clock.now } : {}),
    environment: { CONFIG_CACHE_SECONDS: '300' },
  });
  // Every request the relay makes to the service, as [path, had an Authorization header].
  const requests: Array<[string, boolean]> = [];
  const original = harness.simulator.fetch;
  harness.simulator.fetch = (input, init) => {
    const request = new Request(input, init);
    requests.push([new URL(request.url).pathname, request.headers.has('authorization')]);
    return original(request);
  };
  return { requests };
}

const logoUrlOf = async (clientId = 'demo-client'): Promise<string | null> =>
  (
    (await (await harness.app.request(`${RELAY_ORIGIN}/v1/webchat-configuration?client_id=${clientId}`)).json()) as {
      logo_url: string | null;
    }
  ).logo_url;
const storageRequests = (requests: Array<[string, boolean]>) => requests.filter(([path]) => path === '/media/logo.svg');

describe('GET /v1/logo', () => {
  it("serves the logo from the relay's origin, with an SVG policy that runs nothing and a cache keyed by content", async () => {
    start();
    const logoUrl = await logoUrlOf();
    expect(new URL(logoUrl!).origin).toBe(RELAY_ORIGIN);
    const response = await harness.app.request(logoUrl!);
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toBe('image/svg+xml');
    expect(response.headers.get('Content-Security-Policy')).toBe(
      "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    );
    expect(response.headers.get('X-Content-Type-Options')).toBe('nosniff');
    expect(response.headers.get('Cache-Control')).toBe('public, max-age=31536000, immutable');
    expect(await response.text()).toBe(LOGO_SVG);
  });

  it('fetches the signed URL without the Bearer token, once per configuration however many browsers ask', async () => {
    const { requests } = start();
    const logoUrl = await logoUrlOf();
    for (let i = 0; i < 5; i++) expect((await harness.app.request(logoUrl!)).status).toBe(200);
    expect(storageRequests(requests)).toEqual([['/media/logo.svg', false]]);
    // The service's API calls do carry it: the logo fetch is a different client, not the upstream one.
    expect(
      requests
        .filter(([path]) => path.startsWith('/api/') && path !== '/api/oauth/token/')
        .every(([, bearer]) => bearer),
    ).toBe(true);
  });

  it("keeps serving after the signed URL expires, and follows the configuration's refresh", async () => {
    const clock = { now: Date.parse('2026-11-22T10:00:00Z') };
    const { requests } = start({ clock });
    const first = await logoUrlOf();
    clock.now += 120_000; // the signed URL (60 s) has expired; the relay's configuration (300 s) has not
    expect((await harness.app.request(first!)).status).toBe(200);
    expect(storageRequests(requests)).toHaveLength(1);
    clock.now += 300_000; // the configuration refreshes, with a new signed URL: the logo is fetched again
    const second = await logoUrlOf();
    expect(storageRequests(requests)).toHaveLength(2);
    expect(second).toBe(first); // same bytes, same address: browsers keep their copy
    expect((await harness.app.request(second!)).status).toBe(200);
  });

  it("trusts the bytes, not the storage host's Content-Type", async () => {
    start({ logoImage: { body: PNG, contentType: 'text/html' } });
    const response = await harness.app.request((await logoUrlOf())!);
    expect(response.headers.get('Content-Type')).toBe('image/png');
    expect(response.headers.get('Content-Security-Policy')).toBeNull();
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(PNG);
  });

  it.each([
    [
      'an HTML page labelled image/png',
      {
        body: '<!doctype html><html><body><svg></svg><script>alert(1)</script></body></html>',
        contentType: 'image/png',
      },
    ],
    ['a script labelled image/svg+xml', { body: 'alert(document.cookie)', contentType: 'image/svg+xml' }],
    [
      'a logo over the size bound',
      {
        body: `<svg xmlns="http://www.w3.org/2000/svg"><!--${'x'.repeat(300 * 1024)}--></svg>`,
        contentType: 'image/svg+xml',
      },
    ],
  ])('refuses %s: no logo_url, and /v1/logo answers not_found', async (_name, logoImage) => {
    start({ logoImage });
    expect(await logoUrlOf()).toBeNull();
    const response = await harness.app.request(`${RELAY_ORIGIN}/v1/logo?client_id=demo-client`);
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found');
    expect(response.headers.get('Cache-Control')).toBe('no-store');
  });

  it('serves an SVG whose script would run only as a document with the sandbox policy (the script never runs)', async () => {
    start({ logoImage: { body: HOSTILE_SVG, contentType: 'image/svg+xml' } });
    const response = await harness.app.request((await logoUrlOf())!);
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Security-Policy')).toMatch(/(^|; )sandbox($|;)/);
    expect(response.headers.get('Content-Security-Policy')).toMatch(/^default-src 'none'/);
  });

  it('without the current content hash, serves the current logo but asks browsers to check again', async () => {
    start();
    await logoUrlOf();
    const response = await harness.app.request(`${RELAY_ORIGIN}/v1/logo?client_id=demo-client&v=old`);
    expect(response.status).toBe(200);
    expect(response.headers.get('Cache-Control')).toBe('public, max-age=0, must-revalidate');
  });

  it('refuses a malformed client_id before it reaches the service', async () => {
    const { requests } = start();
    const response = await harness.app.request(`${RELAY_ORIGIN}/v1/logo?client_id=${encodeURIComponent('../x')}`);
    expect(response.status).toBe(400);
    expect(requests).toEqual([]);
  });
});

describe("the frame's img-src", () => {
  it('is only the relay itself, now that the logo is served by it', async () => {
    start();
    const policy =
      (await harness.app.request(`${RELAY_ORIGIN}/frame?client_id=smile-dental`)).headers.get(
        'Content-Security-Policy',
      ) ?? '';
    expect(policy.split('; ').find((part) => part.startsWith('img-src'))).toBe("img-src 'self'");
  });
});
