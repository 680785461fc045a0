// The tag held back by a real consent manager, as its docs tell a web person to hold a script: CookieConsent
// (vanilla-cookieconsent@3.1.0, a devDependency, served from the practice's own site), its category attribute on the
// pasted tag and `type="text/plain"`. Until the patient agrees, the widget makes no request and shows nothing; the
// consent banner, at the highest z-index, is above everything. Once the patient accepts, the manager replaces the
// tag with a runnable copy and the launcher shows; on the next page the remembered consent runs it at once. In real
// Chromium, the relay on another site (chat.vendor-relay.test), as in the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { borrowChromium, giveBackChromium, serveHostPages, typeAndSend, type HostPageServer } from './harness.ts';
import { startProduct } from '../support/product.ts';
import {
  boxes,
  PAGE_RECORDER,
  pastedTag,
  readPageReport,
  vendorFileRoutes,
  WIDGET_GLOBALS,
} from '../support/real-packages.ts';

let browser: Browser;
let product: Awaited<ReturnType<typeof startProduct>>;
let host: HostPageServer;

const relay = () => `http://chat.vendor-relay.test:${new URL(product.relayUrl).port}`;

// CookieConsent's own set-up, as its documentation gives it: a "functional" category the patient may refuse. It hides
// itself from automated browsers (navigator.webdriver) unless told not to, and this browser is driven by the test.
const CONSENT_SETUP = `<script>CookieConsent.run({
  hideFromBots: false,
  categories: { necessary: { enabled: true, readOnly: true }, functional: {} },
  language: { default: 'en', translations: { en: {
    consentModal: { title: 'We use cookies', description: 'Some features need your agreement.',
      acceptAllBtn: 'Accept all', acceptNecessaryBtn: 'Reject all' },
    preferencesModal: { title: 'Preferences', acceptAllBtn: 'Accept all', acceptNecessaryBtn: 'Reject all',
      savePreferencesBtn: 'Save', sections: [{ title: 'Chat', linkedCategory: 'functional' }] },
  } } },
});</script>`;

const PAGE = () =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Smile Dental</title>${PAGE_RECORDER}
<link rel="stylesheet" href="/vendor/cookieconsent.css"><script src="/vendor/cookieconsent.js"></script></head>
<body><main><h1>Smile Dental</h1><p>Family dentistry since 1998.</p></main>
${pastedTag(relay(), 'type="text/plain" data-category="functional" async')}${CONSENT_SETUP}</body></html>`;

beforeAll(async () => {
  [browser, product] = await Promise.all([borrowChromium(), startProduct({ relayHost: 'chat.vendor-relay.test' })]);
  host = await serveHostPages({
    ...vendorFileRoutes(['cookieconsent.js', 'cookieconsent.css']),
    '/': () => ({ body: PAGE() }),
    '/favicon.ico': () => ({ body: '', headers: { 'Content-Type': 'image/x-icon' } }),
  });
});
afterAll(async () => {
  await Promise.all([giveBackChromium(browser), product?.close(), host?.close()]);
});

/** The page's report, without the global CookieConsent sets when it runs (its own, not the widget's). */
const pageReport = async (page: Page) => {
  const report = await page.evaluate(readPageReport);
  return { ...report, changes: report.changes.filter((change) => change !== 'window._ccRun added') };
};

/** Whether the launcher is what the page shows at the launcher's centre, and its size. */
const launcherOnTop = async (page: Page) => {
  const { onTop, launcher } = await boxes(page);
  return { onTop, width: launcher?.width, height: launcher?.height };
};

describe('the tag behind a real consent manager (vanilla-cookieconsent@3.1.0), in Chromium', () => {
  it('asks the relay nothing until the patient accepts; then the launcher shows and a message gets its reply; the next page runs it at once', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const relayRequests: string[] = [];
    const logged: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).hostname === 'chat.vendor-relay.test') relayRequests.push(request.url());
    });
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') logged.push(message.text());
    });
    page.on('pageerror', (error) => logged.push(error.message));
    try {
      await page.goto(`http://www.smile-dental.test:${host.port}/`);
      const accept = page.getByRole('button', { name: 'Accept all' }).first();
      await accept.waitFor();
      // The banner is the page's and sits above everything; the widget has not run.
      await page.waitForLoadState('load');
      expect(await page.locator('practice-chat-q7x').count()).toBe(0);
      expect(relayRequests).toEqual([]);

      await accept.click();
      await page.locator('practice-chat-q7x button').waitFor({ timeout: 10_000 });
      // On top once the banner's own closing (a transition of the page's) is over: not under it for good.
      await expect.poll(() => launcherOnTop(page), { timeout: 5_000 }).toEqual({ onTop: true, width: 56, height: 56 });
      await page.locator('practice-chat-q7x button').click();
      const chat = (await (await page.locator('practice-chat-q7x iframe').elementHandle())!.contentFrame())!;
      await expect
        .poll(
          () =>
            chat
              .locator('.greeting')
              .innerText()
              .catch(() => ''),
          { timeout: 15_000 },
        )
        .toMatch(/^Hi, I'm Sunny/);
      await typeAndSend(chat, 'Do you take new patients?');
      await expect.poll(() => chat.locator('.message.bot .text').count(), { timeout: 10_000 }).toBeGreaterThan(0);
      expect(await pageReport(page)).toEqual({ errors: [], lines: [], changes: WIDGET_GLOBALS });
      expect(await page.locator('practice-chat-q7x').count()).toBe(1);

      // The next page: consent is remembered, so the manager runs the tag as the page loads, with no banner.
      await page.reload();
      await page.locator('practice-chat-q7x button').waitFor({ timeout: 10_000 });
      expect(await page.getByRole('button', { name: 'Accept all' }).first().isVisible()).toBe(false);
      expect(await launcherOnTop(page)).toEqual({ onTop: true, width: 56, height: 56 });
      expect(await pageReport(page)).toEqual({ errors: [], lines: [], changes: WIDGET_GLOBALS });
      expect(logged).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows nothing and asks the relay nothing when the patient rejects', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const relayRequests: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).hostname === 'chat.vendor-relay.test') relayRequests.push(request.url());
    });
    try {
      await page.goto(`http://www.smile-dental.test:${host.port}/`);
      await page.getByRole('button', { name: 'Reject all' }).first().click();
      await page.reload();
      await page.waitForLoadState('load');
      // The consent manager is the one to run the tag, and it has decided: once it has set itself up, nothing more.
      await expect
        .poll(() => page.evaluate(() => document.documentElement.classList.contains('show--consent')))
        .toBe(false);
      expect(await page.locator('practice-chat-q7x').count()).toBe(0);
      expect(relayRequests).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
