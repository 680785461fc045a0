// The frame page carries the panel's script and stylesheet inline, so a cold open fetches no file of the panel's:
// one document on one new connection (src/relay/frame/inline-source.ts). Its CSP allows exactly those blocks by
// their hashes, so a block the relay did not write is refused by the browser: an inline script, an inline style, or
// even a script file of the relay's own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
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
  const frame = (await (await page.locator('practice-chat-q7x iframe').elementHandle())!.contentFrame())!;
  await frame.locator('textarea').waitFor();
  return frame;
}

/** Serves the frame page with `extra` written in at the end of its head, headers (the CSP) as the relay sent them. */
const injectIntoFramePage = (context: BrowserContext, extra: string) =>
  rewriteFramePage(context, (html) => html.replace('</head>', () => `${extra}</head>`));

describe('the frame page, inline', () => {
  it("opens with no request for a script or stylesheet of the panel's: they came with the page", async () => {
    const { context, page } = await openPage(browser);
    try {
      const requested: string[] = [];
      context.on('request', (request) => {
        if (['script', 'stylesheet'].includes(request.resourceType())) requested.push(new URL(request.url()).pathname);
      });
      const frame = await openPanel(page);
      // The panel drew from its inline stylesheet: the composer has the panel's styles, not the browser's defaults.
      expect(await frame.locator('.panel').count()).toBe(1);
      expect(requested.filter((path) => !/^\/(loader\.js|assets\/loader-frame-[\w-]+\.js)$/.test(path))).toEqual([]);
      expect(requested).toContain('/loader.js');
    } finally {
      await context.close();
    }
  });

  it('refuses an inline script, an inline style and a script file that the relay did not write into the page', async () => {
    const { context, page } = await openPage(browser);
    try {
      await injectIntoFramePage(
        context,
        '<script>window.injectedInline = true</script>' +
          '<script type="module">window.injectedModule = true</script>' +
          '<script src="/loader.js" data-client-id="smile-dental"></script>' +
          '<style>#app { outline: 7px solid rgb(255, 0, 0) }</style>',
      );
      const violations: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy/.test(message.text())) violations.push(message.text());
      });
      const frame = await openPanel(page);
      expect(
        await frame.evaluate(() => {
          const marks = window as unknown as {
            injectedInline?: boolean;
            injectedModule?: boolean;
            PracticeChat?: unknown;
          };
          return [marks.injectedInline, marks.injectedModule, marks.PracticeChat];
        }),
      ).toEqual([undefined, undefined, undefined]);
      expect(await frame.locator('#app').evaluate((app) => getComputedStyle(app).outlineWidth)).not.toBe('7px');
      // The page's own blocks still ran: the panel is there.
      expect(await frame.locator('.panel').count()).toBe(1);
      expect(violations.length).toBeGreaterThanOrEqual(4);
    } finally {
      await context.close();
    }
  });
});
