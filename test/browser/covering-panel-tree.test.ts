// What a screen reader can read while the panel covers the practice's page, from real Chromium's own accessibility
// tree (the DevTools protocol's, the tree Orca reads through AT-SPI): at 844×390 and 320×256 the page behind the panel
// and the launcher under it are out of the tree while the panel is open, and back once it closes. Firefox and WebKit
// expose no accessibility tree to their drivers; covering-panel.test.ts checks the same `inert` state in them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { borrowChromium, giveBackChromium, serveHostPages, type HostPageServer } from './harness.ts';
import { startProduct } from '../support/product.ts';
import { smileDentalPage } from '../support/host-page.ts';

let browser: Browser;
let product: Awaited<ReturnType<typeof startProduct>>;
let host: HostPageServer;

beforeAll(async () => {
  [browser, product] = await Promise.all([borrowChromium(), startProduct({ relayHost: 'chat.vendor-relay.test' })]);
  const relay = `http://chat.vendor-relay.test:${new URL(product.relayUrl).port}`;
  host = await serveHostPages({ '/': () => ({ body: smileDentalPage(relay) }) });
}, 60_000);
afterAll(async () => {
  await Promise.all([giveBackChromium(browser), product?.close(), host?.close()]);
});

/** The names of the page's own nodes (the frame's are in its own tree) that a screen reader can reach. */
async function readable(page: Page): Promise<string[]> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as {
      nodes: { ignored: boolean; role?: { value: string }; name?: { value: string } }[];
    };
    return nodes
      .filter((node) => !node.ignored && ['heading', 'button'].includes(node.role?.value ?? ''))
      .map((node) => `${node.role!.value} ${node.name?.value ?? ''}`);
  } finally {
    await cdp.detach();
  }
}

describe('the page behind the covering panel, in the accessibility tree', { timeout: 60_000 }, () => {
  it.each([
    [844, 390],
    [320, 256],
  ])('at %i×%i: out of the tree while the panel is open, back once it closes', async (width, height) => {
    const context = await browser.newContext({ viewport: { width, height } });
    try {
      const page = await context.newPage();
      await page.goto(`http://www.smile-dental.test:${host.port}/`);
      await page.locator('practice-chat-q7x button').click();
      await page.frameLocator('practice-chat-q7x iframe').locator('textarea').waitFor();
      await expect.poll(() => readable(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await expect.poll(() => readable(page)).toEqual(['heading Smile Dental', 'button Chat with Sunny']);
    } finally {
      await context.close();
    }
  });
});

// The panel says it is modal (aria-modal) only while it covers the page. A window resized while the panel is open (a
// phone turned, a desktop window narrowed) changes that, and so does a frame that gets its corner size only after the
// panel's first drawing, as Firefox sometimes gives it.
describe('the panel’s aria-modal follows the size of the page while it is open', { timeout: 60_000 }, () => {
  it('modal on a phone, not modal once the window is a desktop’s, modal again once it is narrow', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 700 } });
    try {
      const page = await context.newPage();
      await page.goto(`http://www.smile-dental.test:${host.port}/`);
      await page.locator('practice-chat-q7x button').click();
      const panel = page.frameLocator('practice-chat-q7x iframe').locator('[role="dialog"]');
      await page.frameLocator('practice-chat-q7x iframe').locator('textarea').waitFor();
      const modal = () => panel.getAttribute('aria-modal');
      await expect.poll(modal).toBe('true');
      await page.setViewportSize({ width: 1024, height: 768 });
      await expect.poll(modal).toBe('false');
      await page.setViewportSize({ width: 390, height: 700 });
      await expect.poll(modal).toBe('true');
    } finally {
      await context.close();
    }
  });
});
