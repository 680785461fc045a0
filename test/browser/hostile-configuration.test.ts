// Hostile configuration values from the upstream, through the real relay, to a real page in Chromium: safe defaults or
// no launcher; Object.prototype never changed (in the page or the frame); the host page never sees an exception.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { borrowChromium, giveBackChromium, serveHostPages, type HostPageServer } from './harness.ts';
import { BUILT_DIST } from '../support/product.ts';
import { createJsonLogger } from '../../src/relay/log.ts';
import { startRelayServer, type RunningRelay } from '../../src/relay/serve.ts';
import { readSettings } from '../../src/relay/settings.ts';
import { createUpstreamClient } from '../../src/relay/upstream/index.ts';
import { recordXssCalls } from './xss-hook.ts';

const PUBLIC_DIR = fileURLToPath(new URL('../../public', import.meta.url));

const valid = (id: string) => ({
  id,
  practice: 'prc_hostile',
  webchat_domains: [
    { id: 'd1', domain: 'localhost' },
    { id: 'd2', domain: '127.0.0.1' },
  ],
  logo_signed_url: '',
  webchat_icon_color: '#0f766e',
  webchat_icon_opacity: 100,
  google_tag_id: '',
  is_active: true,
  aimee_bot_name: 'Aimee',
});

/** Raw JSON bodies, so that __proto__ really arrives as a key, as it would from a hostile or broken upstream. */
const BODIES: Record<string, string> = {
  'css-in-colour': JSON.stringify({
    ...valid('css-in-colour'),
    webchat_icon_color: 'red;}</style><script>__xss(1)</script><style>{',
  }),
  'colour-expression': JSON.stringify({
    ...valid('colour-expression'),
    webchat_icon_color: 'url(javascript:__xss(2))',
  }),
  'huge-opacity': JSON.stringify({ ...valid('huge-opacity'), webchat_icon_opacity: 1e15 }),
  'negative-opacity': JSON.stringify({ ...valid('negative-opacity'), webchat_icon_opacity: -500 }),
  'javascript-logo': JSON.stringify({ ...valid('javascript-logo'), logo_signed_url: 'javascript:__xss(3)' }),
  'data-logo': JSON.stringify({
    ...valid('data-logo'),
    logo_signed_url: 'data:image/svg+xml,<svg onload="__xss(4)"></svg>',
  }),
  'long-bot-name': JSON.stringify({
    ...valid('long-bot-name'),
    aimee_bot_name: `<img src=x onerror=__xss(5)>${'A'.repeat(10_000)}`,
  }),
  'proto-everywhere': `{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":2}},"id":"proto-everywhere","practice":"prc_hostile",
    "webchat_domains":[{"id":"d1","domain":"localhost","__proto__":{"polluted":3}},{"id":"d2","domain":"127.0.0.1"}],"logo_signed_url":"",
    "webchat_icon_color":"#0f766e","webchat_icon_opacity":100,"google_tag_id":"","is_active":true,"aimee_bot_name":"Aimee"}`,
  'missing-fields': JSON.stringify({ id: 'missing-fields', is_active: true }),
  'wrong-types': JSON.stringify({
    ...valid('wrong-types'),
    is_active: 'true',
    webchat_domains: 'localhost',
    aimee_bot_name: 42,
    webchat_icon_opacity: '50',
  }),
  'not-json': '{"id": "not-json", ',
  control: JSON.stringify(valid('control')),
};

let browser: Browser;
let context: BrowserContext;
/** The one tab every case's page is loaded in, afresh: a new document, with what it logs and throws. */
let page: Page;
const pageErrors: string[] = [];
const consoleLines: string[] = [];
let relay: RunningRelay;
let upstream: ReturnType<typeof createServer>;
let host: HostPageServer;

beforeAll(async () => {
  upstream = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://upstream');
    if (url.pathname === '/api/oauth/token/') {
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(
        JSON.stringify({
          access_token: 'tok',
          expires_in: 3600,
          token_type: 'Bearer',
          scope: 'offline_access',
          refresh_token: 'r',
        }),
      );
      return;
    }
    const body = BODIES[url.searchParams.get('client_id') ?? ''];
    if (url.pathname === '/api/conversations/webchat-configuration/' && body !== undefined) {
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(body);
      return;
    }
    response.writeHead(404, { 'Content-Type': 'application/json' }).end('{"detail":"Not found.","code":"not_found"}');
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const settings = readSettings({ NODE_ENV: 'test', PORT: '0' }, () => new Uint8Array(32).fill(5));
  [browser, relay] = await Promise.all([
    borrowChromium(),
    startRelayServer({
      settings,
      upstream: {
        client: createUpstreamClient({ baseUrl: upstreamUrl, username: 'u', password: 'p', timeoutMs: 2000 }),
      },
      files: { distDir: BUILT_DIST, publicDir: PUBLIC_DIR },
      observability: { logger: createJsonLogger(() => {}) },
    }),
  ]);
  const relayPort = new URL(relay.url).port;
  host = await serveHostPages(
    Object.fromEntries(
      Object.keys(BODIES).map((clientId) => [
        `/${clientId}`,
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${clientId}</title></head><body><h1>Practice</h1>
<script async src="http://localhost:${relayPort}/loader.js" data-client-id="${clientId}" data-locale="en"></script></body></html>`,
      ]),
    ),
  );
  context = await browser.newContext();
  await context.addInitScript(recordXssCalls);
  page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => consoleLines.push(message.text()));
});
afterAll(async () => {
  // The context before its browser: closed together, the browser can win and the context's close then throws.
  await context?.close();
  await Promise.all([
    giveBackChromium(browser),
    relay?.close(),
    host?.close(),
    new Promise((resolve) => upstream?.close(resolve)),
  ]);
});

const prototypeState = (target: Page | Frame) =>
  target.evaluate(() => ({
    names: Object.getOwnPropertyNames(Object.prototype).sort().join(','),
    polluted: ({} as Record<string, unknown>).polluted ?? null,
    hits: [...((window as unknown as { __xssHits?: unknown[] }).__xssHits ?? [])],
  }));

/**
 * Loads the case's page afresh in the tab: a new document in the page and in the frame (a prototype changed by the
 * last case is gone with it), and nothing of the last case's logs or errors.
 */
async function visit(clientId: string) {
  pageErrors.length = 0;
  consoleLines.length = 0;
  await page.goto(`${host.url}/${clientId}`);
  // The loader has decided once it shows a launcher or says why not.
  await expect
    .poll(
      async () =>
        (await page.locator('practice-chat-q7x button').count()) > 0 ||
        consoleLines.some((line) => line.startsWith('Practice chat not shown:')),
      { timeout: 10_000 },
    )
    .toBe(true);
}

const UNPARSEABLE = new Set(['missing-fields', 'wrong-types', 'not-json']);
const EXPECTED_NAMES = Object.getOwnPropertyNames(Object.prototype).sort().join(',');

// One case after another in one tab: a renderer started once, rather than two (the page's and the frame's) per case.
describe('hostile configuration values through the relay to a real page', () => {
  for (const clientId of Object.keys(BODIES)) {
    it(`${clientId}: safe defaults or no launcher, prototype untouched, no exception in the host page`, async () => {
      await visit(clientId);
      const launcher = page.locator('practice-chat-q7x button');
      // A record the relay can parse is normalised to safe values and shown; one it cannot parse shows nothing.
      expect(await launcher.count()).toBe(UNPARSEABLE.has(clientId) ? 0 : 1);
      if (await launcher.count()) {
        const style = await launcher.evaluate((element) => {
          const computed = getComputedStyle(element);
          return { background: computed.backgroundColor, opacity: Number(computed.opacity) };
        });
        expect(style.background).toMatch(/^rgba?\(\d+, \d+, \d+(?:, [\d.]+)?\)$/);
        expect(style.opacity).toBeGreaterThanOrEqual(0);
        expect(style.opacity).toBeLessThanOrEqual(1);
        await launcher.click();
        const frame = (await (await page.locator('practice-chat-q7x iframe').elementHandle())!.contentFrame())!;
        await frame.locator('textarea').waitFor();
        const title = await frame.locator('#chat-title').innerText();
        expect(title.length).toBeGreaterThan(0);
        expect(title.length).toBeLessThanOrEqual(60);
        expect(title).not.toMatch(/[<>]/);
        expect(await frame.locator('img[src^="javascript:"], img[src^="data:"]').count()).toBe(0);
        expect(await prototypeState(frame)).toEqual({ names: EXPECTED_NAMES, polluted: null, hits: [] });
      }
      expect(await prototypeState(page)).toEqual({ names: EXPECTED_NAMES, polluted: null, hits: [] });
      expect(pageErrors).toEqual([]);
    });
  }
});
