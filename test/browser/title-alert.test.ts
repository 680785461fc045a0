// The "(N) " before the practice page's title for replies that arrive while the tab is hidden, in real Chromium with
// the relay on another site: only while hidden, gone when the page is seen again, never any message text, and off
// with data-title-alert="off". Headless Chromium keeps every page visible (another tab in front, or the window
// minimised through CDP, both leave visibilityState "visible"), so the test hides the tab the way the page and the
// frame observe it: visibilityState and hidden overridden in both documents, and a visibilitychange event in each.
import { afterAll, beforeAll, describe, type ExpectStatic, it } from 'vitest';
import type { Browser, Frame, Page } from 'playwright-core';
import {
  borrowChromium,
  giveBackChromium,
  launchTestChromium,
  openPage,
  serveHostPages,
  typeAndSend,
  type HostPageServer,
} from './harness.ts';
import { startProduct } from '../support/product.ts';
import { smileDentalPage } from '../support/host-page.ts';

let browser: Browser;
/**
 * The second patient's browser: two patients typing at once in tabs of one headless Chromium once lost every keystroke
 * of one of them (live-replies.test.ts), so each patient side by side has a browser of their own.
 */
let quietBrowser: Browser;
let product: Awaited<ReturnType<typeof startProduct>>;
let host: HostPageServer;

const relay = () => `http://chat.vendor-relay.test:${new URL(product.relayUrl).port}`;
const hostPage = (attributes = '') => smileDentalPage(relay(), ` data-locale="en" ${attributes}`);

beforeAll(async () => {
  [browser, quietBrowser, product] = await Promise.all([
    borrowChromium(),
    launchTestChromium(),
    // The service sends its events, so a team member's message reaches the panel as soon as it is stored rather than at
    // the relay's next read: how a reply arrives is not what these tests are about (live-replies.test.ts is).
    startProduct({ relayHost: 'chat.vendor-relay.test', upstreamEvents: true }),
  ]);
  host = await serveHostPages({
    '/': () => ({ body: hostPage() }),
    '/quiet': () => ({ body: hostPage('data-title-alert="off"') }),
  });
});
afterAll(async () => {
  await Promise.all([giveBackChromium(browser), quietBrowser?.close(), product?.close(), host?.close()]);
});

// Takes the running test's own expect: expect.poll needs to know its test, and the tests run side by side.
async function startConversation(expect: ExpectStatic, tab: Page, text: string, path = '/'): Promise<Frame> {
  await tab.goto(`http://www.smile-dental.test:${host.port}${path}`);
  // Every title the page ever has, from the start.
  await tab.evaluate(() => {
    const seen: string[] = [document.title];
    (window as unknown as { titles: string[] }).titles = seen;
    new MutationObserver(() => seen.push(document.title)).observe(document.head, {
      subtree: true,
      childList: true,
      characterData: true,
    });
  });
  await tab.locator('practice-chat-q7x button').click();
  const frameElement = tab.locator('practice-chat-q7x iframe');
  await expect.poll(() => frameElement.isVisible(), { timeout: 10_000 }).toBe(true);
  const frame = (await (await frameElement.elementHandle())!.contentFrame())!;
  await frame.locator('textarea').waitFor();
  await typeAndSend(frame, text);
  await expect.poll(() => frame.locator('.message.bot').count(), { timeout: 15_000 }).toBeGreaterThan(0);
  return frame;
}

/** The tab hidden or shown, as the page and the frame see it. */
async function setHidden(tab: Page, frame: Frame, hidden: boolean) {
  for (const target of [tab, frame]) {
    await target.evaluate((value) => {
      Object.defineProperty(document, 'visibilityState', {
        configurable: true,
        get: () => (value ? 'hidden' : 'visible'),
      });
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => value });
      document.dispatchEvent(new Event('visibilitychange'));
    }, hidden);
  }
}

function teamMemberWrites(visitorText: string, text: string) {
  const id = [...product.simulator.store.messages.entries()].find(([, messages]) =>
    messages.some((message) => message.text === visitorText),
  )?.[0];
  if (id === undefined || !product.simulator.writeAs(id, 'agent', text))
    throw new Error('no conversation upstream with that visitor message');
}

const agentTexts = (frame: Frame) => frame.locator('.message.agent .text').allInnerTexts();
const titles = (tab: Page) => tab.evaluate(() => (window as unknown as { titles: string[] }).titles);

// Side by side: each test is a patient of its own (a browser context, a conversation) on the same relay, and spends
// most of its time waiting for replies.
describe.concurrent('the title prefix', () => {
  it('appears only while the page is hidden, counts the replies, goes when it is seen again, and never carries their text', async ({
    expect,
  }) => {
    const { context, page: tab } = await openPage(browser);
    try {
      const frame = await startConversation(expect, tab, 'Can I move my cleaning to next week?');
      // The bot's reply came while the page was visible: no prefix.
      expect(await tab.title()).toBe('Smile Dental');
      await setHidden(tab, frame, true);
      teamMemberWrites('Can I move my cleaning to next week?', 'Yes, Tuesday at 10 works.');
      await expect.poll(() => tab.title(), { timeout: 25_000 }).toBe('(1) Smile Dental');
      teamMemberWrites('Can I move my cleaning to next week?', 'See you then.');
      await expect.poll(() => tab.title(), { timeout: 25_000 }).toBe('(2) Smile Dental');
      await setHidden(tab, frame, false);
      await expect.poll(() => tab.title()).toBe('Smile Dental');
      // Visible again: a reply shows in the panel and leaves the title alone.
      teamMemberWrites('Can I move my cleaning to next week?', 'One more thing: bring your card.');
      await expect.poll(() => agentTexts(frame), { timeout: 25_000 }).toContain('One more thing: bring your card.');
      expect(await tab.title()).toBe('Smile Dental');
      const seen = await titles(tab);
      expect(seen).toContain('(1) Smile Dental');
      for (const title of seen) expect(title).toMatch(/^(\([12]\) )?Smile Dental$/);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('is off with data-title-alert="off"', async ({ expect }) => {
    const { context, page: tab } = await openPage(quietBrowser);
    try {
      const frame = await startConversation(expect, tab, 'Do you see children?', '/quiet');
      await setHidden(tab, frame, true);
      teamMemberWrites('Do you see children?', 'Yes, from age three.');
      await expect.poll(() => agentTexts(frame), { timeout: 25_000 }).toEqual(['Yes, from age three.']);
      expect(await titles(tab)).toEqual(['Smile Dental']);
    } finally {
      await context.close();
    }
  }, 60_000);
});
