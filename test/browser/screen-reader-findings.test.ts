// What a real screen reader (Orca over AT-SPI, docs/screen-reader/) found, held in Chromium's own accessibility tree
// (the DevTools protocol's view of what the browser hands to AT-SPI) and its focus, on a practice page with the relay
// on another site: the sensitive-data warning was spoken three times (an alertdialog, also exposed as an alert); the
// greeting was never spoken on opening (focus goes straight to the composer); after Talk to a person focus sometimes
// was spoken as a nameless "push button" (it sat on <body> for a moment before reaching the composer).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Frame, Page } from 'playwright-core';
import {
  borrowChromium,
  giveBackChromium,
  openPage,
  serveHostPages,
  typeAndSend,
  type HostPageServer,
} from './harness.ts';
import { startProduct } from '../support/product.ts';
import { CATALOGS } from '../../src/shared/locales/catalogs.ts';

let browser: Browser;
let product: Awaited<ReturnType<typeof startProduct>>;
let host: HostPageServer;

const relay = () => `http://chat.vendor-relay.test:${new URL(product.relayUrl).port}`;
const hostPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Smile Dental</title></head>
<body><main><h1>Smile Dental</h1></main>
<script async src="RELAY/loader.js" data-client-id="smile-dental"></script></body></html>`;

beforeAll(async () => {
  [browser, product] = await Promise.all([borrowChromium(), startProduct({ relayHost: 'chat.vendor-relay.test' })]);
  host = await serveHostPages({ '/': () => ({ body: hostPage.replace('RELAY', relay()) }) });
}, 60_000);
afterAll(async () => {
  await Promise.all([giveBackChromium(browser), product?.close(), host?.close()]);
});

async function openPanel(page: Page): Promise<Frame> {
  await page.goto(`http://www.smile-dental.test:${host.port}/`);
  await page.locator('practice-chat-q7x button').click();
  const frameElement = page.locator('practice-chat-q7x iframe');
  await expect.poll(() => frameElement.isVisible(), { timeout: 10_000 }).toBe(true);
  const frame = (await (await frameElement.elementHandle())!.contentFrame())!;
  await frame.locator('textarea').waitFor();
  return frame;
}

interface AxNode {
  role?: { value: string };
  name?: { value: string };
  description?: { value: string };
  properties?: { name: string; value: { value: unknown } }[];
}

/** The frame's accessibility tree as Chromium exposes it to assistive technology. */
async function accessibilityTree(page: Page, frame: Frame): Promise<AxNode[]> {
  const session = await page.context().newCDPSession(frame);
  try {
    const { nodes } = (await session.send('Accessibility.getFullAXTree')) as { nodes: AxNode[] };
    return nodes;
  } finally {
    await session.detach();
  }
}
const property = (node: AxNode, name: string) => node.properties?.find((entry) => entry.name === name)?.value.value;

describe("the real screen reader's findings, in Chromium's accessibility tree", { timeout: 60_000 }, () => {
  it('the greeting is the description of the composer that opening focuses, so it is spoken once, on opening', async () => {
    const { context, page } = await openPage(browser);
    try {
      const frame = await openPanel(page);
      await expect.poll(() => frame.evaluate(() => document.activeElement?.tagName)).toBe('TEXTAREA');
      const composer = (await accessibilityTree(page, frame)).find((node) => node.role?.value === 'textbox');
      expect(property(composer!, 'focused')).toBe(true);
      expect(composer?.description?.value).toBe(CATALOGS.en.greeting.replace('{bot}', 'Sunny'));
    } finally {
      await context.close();
    }
  });

  it('the sensitive-data warning is a dialog that focus enters (said once), not an alert said as it appears', async () => {
    const { context, page } = await openPage(browser);
    try {
      const frame = await openPanel(page);
      await frame.locator('textarea').fill('my card is 4111 1111 1111 1111');
      await frame.locator('textarea').press('Enter');
      await frame.locator('.warning').waitFor();
      const nodes = await accessibilityTree(page, frame);
      const warning = nodes.filter(
        (node) => node.name?.value === CATALOGS.en.sensitiveTitle && /dialog|alert/.test(node.role?.value ?? ''),
      );
      expect(warning.map((node) => [node.role?.value, property(node, 'live') ?? 'not live'])).toEqual([
        ['dialog', 'not live'],
      ]);
      expect(nodes.filter((node) => node.role?.value === 'alert' || node.role?.value === 'alertdialog')).toEqual([]);
      await expect.poll(() => frame.evaluate(() => document.activeElement?.closest('.warning') !== null)).toBe(true);
    } finally {
      await context.close();
    }
  });

  it('Talk to a person: focus goes to the composer without resting on <body> on the way', async () => {
    const { context, page } = await openPage(browser);
    try {
      const frame = await openPanel(page);
      await typeAndSend(frame, 'What are your opening hours?');
      await frame.locator('.message.bot').first().waitFor({ timeout: 10_000 });
      // Where focus is each time the DOM changes, and each time focus moves: what assistive technology is told.
      await frame.evaluate(() => {
        const seen: string[] = [];
        (window as unknown as { seen: string[] }).seen = seen;
        const where = () => {
          const active = document.activeElement;
          return !active || active === document.body ? 'BODY' : active.tagName;
        };
        new MutationObserver(() => seen.push(where())).observe(document.body, { subtree: true, childList: true });
        document.addEventListener('focusin', () => seen.push(`focus ${where()}`));
      });
      await frame.getByRole('button', { name: CATALOGS.en.talkToPerson }).click();
      await expect
        .poll(() => frame.evaluate(() => document.querySelector('.actions')?.textContent), { timeout: 10_000 })
        .not.toContain(CATALOGS.en.talkToPerson);
      await expect.poll(() => frame.evaluate(() => document.activeElement?.tagName)).toBe('TEXTAREA');
      const seen = await frame.evaluate(() => (window as unknown as { seen: string[] }).seen);
      expect(seen).not.toContain('BODY');
      // The clicked button, then the composer: nothing between.
      expect(seen.filter((entry) => entry.startsWith('focus '))).toEqual(['focus BUTTON', 'focus TEXTAREA']);
    } finally {
      await context.close();
    }
  });
});
