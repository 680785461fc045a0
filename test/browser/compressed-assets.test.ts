// What a visitor's browser really downloads: Chromium, which accepts br, must get loader.js, its second file and the
// frame page (which carries the panel's script and stylesheet) brotli-compressed from the built relay (the sizes the
// bundle budgets count are the bytes on the wire).
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Response } from 'playwright-core';
import { borrowChromium, giveBackChromium, openPage, serveHostPages, type HostPageServer } from './harness.ts';
import { startProduct } from '../support/product.ts';
import { smileDentalPage } from '../support/host-page.ts';

let browser: Browser;
let product: Awaited<ReturnType<typeof startProduct>>;
let host: HostPageServer;

beforeAll(async () => {
  [browser, product] = await Promise.all([borrowChromium(), startProduct()]);
  host = await serveHostPages({
    '/': () => ({
      body: smileDentalPage(product.relayUrl),
    }),
  });
});
afterAll(async () => {
  await Promise.all([giveBackChromium(browser), product?.close(), host?.close()]);
});

it('sends loader.js, its second file and the frame page to Chromium as brotli, with Vary: Accept-Encoding', async () => {
  const { context, page } = await openPage(browser);
  try {
    const seen = new Map<string, Response>();
    page.on('response', (response) => {
      const url = new URL(response.url());
      if (url.origin === product.relayUrl) seen.set(url.pathname, response);
    });
    await page.goto(`http://www.smile-dental.test:${host.port}/`);
    await page.locator('practice-chat-q7x button').waitFor();
    // The loader's second file comes on intent. Its response is waited for before the page is left: the frame's
    // element is made in the same turn as its request, so on a busy machine the answer can come after the element.
    const secondFile = page.waitForResponse((response) =>
      /^\/assets\/loader-frame-[\w-]+\.js$/.test(new URL(response.url()).pathname),
    );
    await page.locator('practice-chat-q7x button').hover();
    await page.locator('practice-chat-q7x iframe').waitFor({ state: 'attached' });
    await secondFile;
    await page.goto(`${product.relayUrl}/frame?client_id=smile-dental`);
    await page.waitForLoadState('load');

    const loaderFrame = [...seen.keys()].filter((path) => /^\/assets\/loader-frame-[\w-]+\.js$/.test(path));
    expect(loaderFrame).toHaveLength(1);
    const expected = ['/loader.js', ...loaderFrame, '/frame'];
    for (const path of expected) {
      const response = seen.get(path);
      expect(response, path).toBeDefined();
      expect(response!.status(), path).toBe(200);
      expect((await response!.request().allHeaders())['accept-encoding'], path).toContain('br');
      const headers = await response!.allHeaders();
      expect(headers['content-encoding'], path).toBe('br');
      expect(headers['vary'], path).toBe('Accept-Encoding');
    }
    // And the page still works from those bytes: the panel's script, inline, ran and drew the panel.
    await expect.poll(() => page.locator('body *').count()).toBeGreaterThan(3);
  } finally {
    await context.close();
  }
});
