// The logo through the relay, in real Chromium: a host page whose CSP allows images only from the relay shows the logo
// in the launcher and the panel; the signed URL's expiry does not break it; an SVG logo's script never runs.
import { afterAll, beforeAll, describe, type ExpectStatic, it } from 'vitest';
import type { Browser, Frame, Page } from 'playwright-core';
import { borrowChromium, giveBackChromium, openPage, serveHostPages, type HostPageServer } from './harness.ts';
import { startProduct } from '../support/product.ts';

// Would mark the document and log a line if it ever ran.
const HOSTILE_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="64" height="64"><rect width="64" height="64" fill="#0f766e"/>' +
  '<script>document.documentElement.setAttribute("data-ran","yes");console.log("svg script ran")</script></svg>';

let browser: Browser;
let product: Awaited<ReturnType<typeof startProduct>>;
let hostile: Awaited<ReturnType<typeof startProduct>>;
let host: HostPageServer;

/** A practice page that allows scripts, frames, connections and images from the relay only. */
const strictPage = (relay: string) => ({
  body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Smile Dental</title></head><body><main><h1>Smile Dental</h1></main>
<script async nonce="r4nd0m" src="${relay}/loader.js" data-client-id="smile-dental"></script></body></html>`,
  headers: {
    'Content-Security-Policy': `default-src 'none'; script-src 'nonce-r4nd0m'; style-src 'none'; connect-src ${relay}; frame-src ${relay}; img-src ${relay}`,
  },
});

/** How far the simulator's clock runs ahead of the real one: moved on to expire the signed logo URLs it has issued. */
let simulatorClockAheadMs = 0;

beforeAll(async () => {
  // Signed logo URLs that expire within two seconds, so a test can outlive one. (The simulator counts expiry in whole
  // seconds, so a one-second URL can be dead a few milliseconds after it is signed: too short for the relay's fetch.)
  // The simulator checks them against its own clock, which the test moves on rather than wait for the real one.
  [browser, product, hostile] = await Promise.all([
    borrowChromium(),
    startProduct({ simulator: { logoUrlLifetimeSeconds: 2, now: () => Date.now() + simulatorClockAheadMs } }),
    startProduct({ simulator: { logoImage: { body: HOSTILE_SVG, contentType: 'image/svg+xml' } } }),
  ]);
  host = await serveHostPages({
    '/': () => strictPage(product.relayUrl),
    '/hostile': () => strictPage(hostile.relayUrl),
  });
});
afterAll(async () => {
  await Promise.all([giveBackChromium(browser), product?.close(), hostile?.close(), host?.close()]);
});

/** The rendered image's source and whether it decoded (a blocked or failed image has no natural width). */
const imageState = (frameOrPage: Page | Frame, selector: string) =>
  frameOrPage.locator(selector).evaluate((image: HTMLImageElement) => ({
    src: image.currentSrc,
    loaded: image.complete && image.naturalWidth > 0,
  }));

async function openStrictPage(path = '/') {
  const opened = await openPage(browser);
  const violations: string[] = [];
  opened.page.on('console', (line) => {
    if (/Content Security Policy/i.test(line.text())) violations.push(line.text());
  });
  await opened.page.goto(`http://www.smile-dental.test:${host.port}${path}`);
  return { ...opened, violations };
}

// Takes the running test's own expect: expect.poll needs to know its test, and the tests run side by side.
async function openPanel(expect: ExpectStatic, page: Page): Promise<Frame> {
  await page.locator('practice-chat-q7x button').click();
  const frameElement = page.locator('practice-chat-q7x iframe');
  await expect.poll(() => frameElement.isVisible(), { timeout: 10_000 }).toBe(true);
  const frame = (await (await frameElement.elementHandle())!.contentFrame())!;
  await frame.locator('textarea').waitFor();
  return frame;
}

// Side by side: each test has a relay of its own and browser contexts of its own.
describe.concurrent('the logo from the relay in real Chromium', () => {
  it('shows in the launcher and the panel on a page whose CSP allows images only from the relay, and outlives its signed URL', async ({
    expect,
  }) => {
    for (const round of ['first', 'after the signed URL expired']) {
      const { context, page, violations } = await openStrictPage();
      try {
        await page.locator('practice-chat-q7x button img').waitFor({ state: 'attached' });
        await expect
          .poll(() => imageState(page, 'practice-chat-q7x button img'))
          .toEqual({
            src: expect.stringMatching(new RegExp(`^${product.relayUrl}/v1/logo\\?client_id=smile-dental&v=`)),
            loaded: true,
          });
        const frame = await openPanel(expect, page);
        await expect
          .poll(() => imageState(frame, 'img.avatar'))
          .toEqual({
            src: expect.stringMatching(new RegExp(`^${product.relayUrl}/v1/logo\\?`)),
            loaded: true,
          });
        expect(violations, round).toEqual([]);
      } finally {
        await context.close();
      }
      // The service's signed URL lives at most two seconds, by the service's clock: now it is dead. The relay's copy of
      // the logo lives with its configuration.
      simulatorClockAheadMs += 3000;
    }
  });

  it("never runs an SVG logo's script, shown in the panel or opened directly", async ({ expect }) => {
    const { context, page } = await openStrictPage('/hostile');
    const ran: string[] = [];
    context.on('console', (line) => {
      if (line.text().includes('svg script ran')) ran.push(line.text());
    });
    try {
      const frame = await openPanel(expect, page);
      await expect.poll(() => imageState(frame, 'img.avatar').then((state) => state.loaded)).toBe(true);
      const logoUrl = (await imageState(frame, 'img.avatar')).src;

      const direct = await context.newPage();
      const response = await direct.goto(logoUrl);
      // The SVG is shown (it is a document here), yet its script did not run.
      expect(await direct.locator('rect').count()).toBe(1);
      expect(await direct.evaluate(() => document.documentElement.getAttribute('data-ran'))).toBeNull();
      expect(ran).toEqual([]);
      expect(response?.headers()['content-security-policy']).toBe(
        "default-src 'none'; style-src 'unsafe-inline'; sandbox",
      );
    } finally {
      await context.close();
    }
  });
});
