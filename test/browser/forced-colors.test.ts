// Forced colours (Windows High Contrast and the like) replace every colour with the system's and drop backgrounds and
// shadows, so an edge drawn only by a background or a shadow disappears: the launcher against the page, the open
// frame against the page, the Send button, the message and greeting bubbles, the sensitive-data warning. Each must
// still have a visible border. A frame whose panel never draws (its script could not run) is never shown at all.
// Chromium's emulation of `forced-colors: active`; Firefox and WebKit offer none to a test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Frame, Page } from 'playwright-core';
import { borrowChromium, giveBackChromium, openPage, serveHostPages, type HostPageServer } from './harness.ts';
import { startProduct } from '../support/product.ts';
import { smileDentalPage } from '../support/host-page.ts';
import { rewriteFramePage } from './frame-page-rewrite.ts';

let browser: Browser;
let product: Awaited<ReturnType<typeof startProduct>>;
let host: HostPageServer;

beforeAll(async () => {
  [browser, product] = await Promise.all([borrowChromium(), startProduct()]);
  host = await serveHostPages({ '/': () => ({ body: smileDentalPage(product.relayUrl) }) });
});
afterAll(async () => {
  await Promise.all([giveBackChromium(browser), product?.close(), host?.close()]);
});

async function openPanel(page: Page): Promise<Frame> {
  await page.goto(`http://www.smile-dental.test:${host.port}/`);
  await page.locator('practice-chat-q7x button').click();
  const frameElement = page.locator('practice-chat-q7x iframe');
  const frame = (await (await frameElement.elementHandle())!.contentFrame())!;
  await frame.locator('textarea').waitFor();
  // Shown once its panel was ready, before the panel was told to open (src/loader/frame.ts).
  expect(await frameElement.isVisible()).toBe(true);
  return frame;
}

/** Each selector's first element's top border as drawn: `width style`, or `missing` when nothing matches. */
const borders = (frame: Frame, selectors: string[]) =>
  frame.evaluate(
    (list) =>
      Object.fromEntries(
        list.map((selector) => {
          const element = document.querySelector(selector);
          if (!element) return [selector, 'missing'];
          const style = getComputedStyle(element);
          return [selector, `${style.borderTopWidth} ${style.borderTopStyle}`];
        }),
      ),
    selectors,
  );

describe('forced colours in real Chromium', () => {
  it('the frame, the Send button, the bubbles and the sensitive-data warning keep a visible edge', async () => {
    const { context, page } = await openPage(browser);
    try {
      await page.emulateMedia({ forcedColors: 'active' });
      const frame = await openPanel(page);
      await frame.locator('textarea').fill('my card is 4111 1111 1111 1111');
      await frame.locator('textarea').press('Enter');
      await frame.locator('.warning').waitFor();
      // The frame's edge is its document's root's: the panel inside it draws none of its own.
      const selectors = [':root', 'button.primary', '.messages .bubble', '.warning'];
      const drawn = await borders(frame, selectors);
      expect(drawn).toEqual(Object.fromEntries(selectors.map((selector) => [selector, '1px solid'])));
      await frame.getByRole('button', { name: 'Send anyway' }).click();
      await frame.locator('.message.visitor .text').waitFor();
      expect(await borders(frame, ['.message.visitor .text'])).toEqual({ '.message.visitor .text': '1px solid' });
    } finally {
      await context.close();
    }
  });

  it('a frame whose panel never draws (its script did not run) is never shown: no empty box over the page', async () => {
    const { context, page } = await openPage(browser);
    try {
      await page.emulateMedia({ forcedColors: 'active' });
      // The panel's script travels inside the frame page: the page is served without it.
      await rewriteFramePage(context, (html) => html.replace(/<script type="module">[\s\S]*?<\/script>/, ''));
      await page.goto(`http://www.smile-dental.test:${host.port}/`);
      await page.locator('practice-chat-q7x button').click();
      const frameElement = page.locator('practice-chat-q7x iframe');
      const frame = (await (await frameElement.elementHandle())!.contentFrame())!;
      // The frame's page, from the relay, has loaded: its panel never will.
      await expect.poll(() => frame.url(), { timeout: 10_000 }).toContain(new URL(product.relayUrl).port);
      await frame.waitForLoadState('load');
      expect(await frame.locator('.panel').count()).toBe(0);
      expect(await page.locator('practice-chat-q7x button').getAttribute('aria-expanded')).toBe('true');
      expect(await frameElement.isVisible()).toBe(false);
    } finally {
      await context.close();
    }
  });

  it("the launcher in the practice's page keeps its round edge", async () => {
    const { context, page } = await openPage(browser);
    try {
      await page.emulateMedia({ forcedColors: 'active' });
      await page.goto(`http://www.smile-dental.test:${host.port}/`);
      const drawn = await page.locator('practice-chat-q7x button').evaluate((button) => {
        const style = getComputedStyle(button);
        return `${style.borderTopWidth} ${style.borderTopStyle}`;
      });
      expect(drawn).toBe('1px solid');
    } finally {
      await context.close();
    }
  });
});
