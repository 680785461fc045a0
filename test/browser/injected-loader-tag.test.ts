// Injected markup must not point the loader elsewhere, in real Chromium. A page under a nonce + 'strict-dynamic' CSP
// holds a script tag an attacker injected: the CSP blocked it, but it stays in the DOM, with a data-relay (and a src)
// on a hostile origin. The loader itself runs where document.currentScript is null (its tag in a shadow root, as a
// web component or a tag manager may put it), or where markup has named an element "currentScript". The hostile
// origin, a real server that records what it is asked and would answer as a relay, must never hear from the page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { borrowChromium, giveBackChromium, openPage, serveHostPages, type HostPageServer } from './harness.ts';
import { startProduct } from '../support/product.ts';

let browser: Browser;
let product: Awaited<ReturnType<typeof startProduct>>;
let host: HostPageServer;
let hostile: HostPageServer;
/** Every path the hostile origin was asked for. */
const hostileRequests: string[] = [];
const PREFIX = 'Practice chat not shown: ';
const NONCE = 'r4nd0m';

const hostileOrigin = () => `http://hostile.test:${hostile.port}`;

/** The page: the attacker's markup first, then the page's own nonce'd script, which inserts the loader. */
function attackPage(injected: string, loaderInsertion: string) {
  const relay = product.relayUrl;
  return {
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Smile Dental</title></head><body><main><h1>Smile Dental</h1></main>${injected}<script nonce="${NONCE}">${loaderInsertion}</script></body></html>`,
    headers: {
      // Connections and frames to the hostile origin are allowed, so that a loader pointed there would reach it;
      // images are not, so that the injected markup itself (an <img>) fetches nothing from it.
      'Content-Security-Policy': `default-src 'none'; script-src 'nonce-${NONCE}' 'strict-dynamic'; style-src 'nonce-${NONCE}'; connect-src ${relay} ${hostileOrigin()}; frame-src ${relay} ${hostileOrigin()}; img-src ${relay}`,
    },
  };
}

/** The loader's tag, as the page's own script makes it (trusted through 'strict-dynamic'), appended to `parent`. */
const insertLoader = (parent: string) => `
  const tag = document.createElement('script');
  tag.src = ${JSON.stringify(`${product.relayUrl}/loader.js`)};
  tag.setAttribute('data-client-id', 'smile-dental');
  tag.setAttribute('nonce', ${JSON.stringify(NONCE)});
  ${parent}.append(tag);`;
/** In a shadow root: a script there runs with document.currentScript null. */
const inShadowRoot = () => `
  const element = document.createElement('smile-widgets');
  document.body.append(element);
  const root = element.attachShadow({ mode: 'open' });
  ${insertLoader('root')}`;

const injectedScript = (src: string) =>
  `<script src="${src}" data-client-id="smile-dental" data-relay="${hostileOrigin()}"></script>`;

beforeAll(async () => {
  [browser, product] = await Promise.all([borrowChromium(), startProduct()]);
  // The relay's own answer, renamed: what a hostile relay would serve so that its launcher shows.
  const configuration = (await (
    await fetch(`${product.relayUrl}/v1/webchat-configuration?client_id=smile-dental`)
  ).json()) as { launcher: { label: string } };
  configuration.launcher.label = 'Hostile';
  const record = (body: string, type: string) => (request: { url?: string }) => {
    hostileRequests.push(new URL(request.url ?? '/', 'http://hostile').pathname);
    return { body, headers: { 'Content-Type': type, 'Access-Control-Allow-Origin': '*' } };
  };
  hostile = await serveHostPages({
    '/loader.js': record('window.hostileLoaderRan = true;', 'text/javascript'),
    '/v1/webchat-configuration': record(JSON.stringify(configuration), 'application/json'),
    '/frame': record('<!doctype html><title>hostile</title>', 'text/html'),
  });
  host = await serveHostPages({
    // The injected tag names the hostile origin in its src and its data-relay; the loader's own is in a shadow root.
    '/hostile-src': () => attackPage(injectedScript(`${hostileOrigin()}/loader.js`), inShadowRoot()),
    // The injected tag copies the relay's src, and names the hostile origin only in its data-relay.
    '/relay-src': () => attackPage(injectedScript(`${product.relayUrl}/loader.js`), inShadowRoot()),
    // The loader's own tag is in the page, but markup named an element "currentScript" (DOM clobbering).
    '/clobbered': () =>
      attackPage(
        `<img name="currentScript" src="${hostileOrigin()}/loader.js" data-client-id="smile-dental" data-relay="${hostileOrigin()}">`,
        insertLoader('document.body'),
      ),
    // Both: the clobbering element and an injected script tag beside the loader's own.
    '/clobbered-and-injected': () =>
      attackPage(
        `<img name="currentScript" src="${hostileOrigin()}/loader.js" data-client-id="smile-dental" data-relay="${hostileOrigin()}">${injectedScript(`${hostileOrigin()}/loader.js`)}`,
        insertLoader('document.body'),
      ),
  });
});
afterAll(async () => {
  await Promise.all([giveBackChromium(browser), product?.close(), host?.close(), hostile?.close()]);
});

const launcherLabel = (p: Page) =>
  p.evaluate(
    () =>
      document.querySelector('practice-chat-q7x')?.shadowRoot?.querySelector('button')?.getAttribute('aria-label') ??
      null,
  );

async function visit(path: string) {
  hostileRequests.length = 0;
  const opened = await openPage(browser);
  await opened.page.goto(`http://www.smile-dental.test:${host.port}${path}`);
  return opened;
}

describe('a script tag injected into the page, with the loader not findable through currentScript', () => {
  it.each([
    ['/hostile-src', true],
    ['/relay-src', true],
    // The frame's code is a module that loader.js imports, which no markup can answer for: the panel opens.
    ['/clobbered', true],
  ])(
    '%s: the launcher and the frame come from the relay; the hostile origin is never asked for anything',
    async (path, opens) => {
      const { context, page, consoleLines } = await visit(path);
      const requested: string[] = [];
      page.on('request', (request) => requested.push(request.url()));
      try {
        await expect.poll(() => launcherLabel(page)).toBe('Chat with Sunny');
        // The patient's intent loads the frame's code, and a click opens the frame.
        await page.locator('practice-chat-q7x button').hover();
        await expect
          .poll(() => requested.some((url) => url.startsWith(`${product.relayUrl}/assets/loader-frame-`)))
          .toBe(true);
        if (opens) {
          await page.locator('practice-chat-q7x button').click();
          await expect
            .poll(() => page.locator('practice-chat-q7x iframe').getAttribute('src'))
            .toMatch(new RegExp(`^${product.relayUrl}/frame\\?`));
        }
        expect(await page.evaluate(() => 'hostileLoaderRan' in window)).toBe(false);
        expect(requested.filter((url) => url.startsWith(hostileOrigin()))).toEqual([]);
        expect(hostileRequests).toEqual([]);
        expect(consoleLines.filter((line) => line.startsWith(PREFIX))).toEqual([]);
      } finally {
        await context.close();
      }
    },
  );

  it('refuses with one line saying what to change when it cannot tell its tag from the injected one', async () => {
    const { context, page, consoleLines } = await visit('/clobbered-and-injected');
    try {
      await expect
        .poll(() => consoleLines.filter((line) => line.startsWith(PREFIX)))
        .toEqual([`${PREFIX}paste its script tag once, with a valid data-client-id, outside shadow roots`]);
      expect(await page.locator('practice-chat-q7x').count()).toBe(0);
      expect(hostileRequests).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
