// A new window of the test Chromium (a context and its page, which every test makes) starts no page of Chromium's own
// address-bar popups (tools/chromium.ts, HEADLESS_UNSEEN_FEATURES): each was a renderer process started per window,
// most of a window's CPU, for a popup headless never shows. A Chromium that renames those features brings them back;
// this says so, rather than the suite quietly slowing down. The same for the processes a test run's Chromium goes
// without (TEST_RUN_UNSEEN_FEATURES and TEST_RUN_SWITCHES there): a spare renderer, and a GPU process of its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { borrowChromium, giveBackChromium } from './harness.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await borrowChromium();
});
afterAll(() => giveBackChromium(browser));

describe("the test Chromium's windows", () => {
  it("start no page of Chromium's own address-bar popups (chrome://omnibox-popup.top-chrome/)", async () => {
    const context = await browser.newContext();
    const session = await browser.newBrowserCDPSession();
    try {
      const page = await context.newPage();
      await page.goto('data:text/html,<title>A page</title><p>A page</p>');
      const { targetInfos } = (await session.send('Target.getTargets')) as {
        targetInfos: Array<{ type: string; url: string }>;
      };
      // Our own page is there, so the list is this window's; the popups came with the window, before its page loaded.
      expect(targetInfos.map((target) => target.url)).toContain('data:text/html,<title>A page</title><p>A page</p>');
      expect(targetInfos.filter((target) => target.url.startsWith('chrome://omnibox-popup'))).toEqual([]);
    } finally {
      await session.detach();
      await context.close();
    }
  });

  it('run in a Chromium with no GPU process and no spare renderer: one renderer for one page', async () => {
    const context = await browser.newContext();
    const session = await browser.newBrowserCDPSession();
    const processes = async () => {
      const { processInfo } = (await session.send('SystemInfo.getProcessInfo')) as {
        processInfo: Array<{ type: string }>;
      };
      // The network and storage services (each a process typed by its service's name) run in either Chromium.
      return processInfo
        .map((process) => process.type)
        .filter((type) => !type.includes('.mojom.'))
        .sort();
    };
    try {
      const page = await context.newPage();
      await page.goto('data:text/html,<title>A page</title><p>A page</p>');
      // A spare renderer is started once the browser is idle after a navigation: give it the time to show.
      await page.waitForTimeout(1000);
      expect(await processes()).toEqual(['browser', 'renderer']);
    } finally {
      await session.detach();
      await context.close();
    }
  });
});
