// The loader on real pages in real Chromium: real host names (*.test mapped to loopback), the real relay and
// simulator, the built loader.js.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { borrowChromium, giveBackChromium, openPage, serveHostPages, type HostPageServer } from './harness.ts';
import { startProduct } from '../support/product.ts';

let browser: Browser;
let product: Awaited<ReturnType<typeof startProduct>>;
let host: HostPageServer;
const PREFIX = 'Practice chat not shown: ';

const page = (body: string, head = '') =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Smile Dental</title>${head}</head><body><main><h1>Smile Dental</h1><a href="#top">Top</a></main>${body}</body></html>`;
const tag = (clientId = 'smile-dental', extra = '') =>
  `<script async src="${product.relayUrl}/loader.js" data-client-id="${clientId}" ${extra}></script>`;

beforeAll(async () => {
  [browser, product] = await Promise.all([borrowChromium(), startProduct()]);
  const relay = product.relayUrl;
  host = await serveHostPages({
    '/': () => ({ body: page(tag()) }),
    '/inactive': () => ({ body: page(tag('demo-inactive')) }),
    '/strict-csp': () => ({
      body: page(tag('smile-dental', 'nonce="r4nd0m"')),
      headers: {
        'Content-Security-Policy': `default-src 'none'; script-src 'nonce-r4nd0m'; style-src 'none'; connect-src ${relay}; frame-src ${relay}; img-src ${relay} http://127.0.0.1:*`,
      },
    }),
    // A host-based policy, as the demo page advises: scripts from the relay's origin, no nonce.
    '/relay-csp': () => ({
      body: page(tag()),
      headers: {
        'Content-Security-Policy': `default-src 'none'; script-src ${relay}; style-src 'none'; connect-src ${relay}; frame-src ${relay}; img-src ${relay} http://127.0.0.1:*`,
      },
    }),
    '/hostile': () => ({
      body: page(
        `<div class="overlay"></div>${tag()}`,
        `<style>* { all: unset !important; } button { display: none !important; } practice-chat-q7x { display: none !important; opacity: 0 !important; }
         div, iframe { visibility: hidden !important; } .overlay { all: initial; position: fixed; inset: 0; z-index: 2147483647; background: rgba(0,0,0,.01); }</style>`,
      ),
    }),
    '/twice': () => ({ body: page(tag() + tag()) }),
  });
});
afterAll(async () => {
  await Promise.all([giveBackChromium(browser), product?.close(), host?.close()]);
});

const url = (hostName: string, path = '/') => `http://${hostName}:${host.port}${path}`;
const launcher = (p: Page) => p.locator('practice-chat-q7x button');

async function visit(address: string) {
  const opened = await openPage(browser);
  await opened.page.goto(address);
  return opened;
}

describe('the loader in real Chromium', () => {
  it('shows the launcher styled from the configuration on an allowed host', async () => {
    const { context, page: p, consoleLines } = await visit(url('www.smile-dental.test'));
    try {
      await launcher(p).waitFor();
      const style = await launcher(p).evaluate((button) => {
        const computed = getComputedStyle(button);
        return {
          background: computed.backgroundColor,
          opacity: computed.opacity,
          color: computed.color,
          label: button.getAttribute('aria-label'),
        };
      });
      // smile-dental: #1d4ed8 at 90 %, a light glyph on it.
      expect(style).toEqual({
        background: 'rgb(29, 78, 216)',
        opacity: '0.9',
        color: 'rgb(255, 255, 255)',
        label: 'Chat with Sunny',
      });
      expect(consoleLines.filter((line) => line.startsWith(PREFIX))).toEqual([]);
      await launcher(p).hover();
      await expect.poll(() => launcher(p).evaluate((button) => getComputedStyle(button).opacity)).toBe('1');
    } finally {
      await context.close();
    }
  });

  it('shows nothing on a host that is not allowed, and logs exactly one line', async () => {
    const { context, page: p, consoleLines } = await visit(url('smile-dental.test.evil.test'));
    try {
      await expect.poll(() => consoleLines.filter((line) => line.startsWith(PREFIX)).length).toBe(1);
      expect(consoleLines.filter((line) => line.startsWith(PREFIX))).toEqual([
        `${PREFIX}smile-dental.test.evil.test is not an allowed domain`,
      ]);
      expect(await p.locator('practice-chat-q7x').count()).toBe(0);
      expect(await p.evaluate(() => document.body.innerHTML.includes('<iframe'))).toBe(false);
    } finally {
      await context.close();
    }
  });

  it('shows nothing for an inactive configuration', async () => {
    const { context, page: p, consoleLines } = await visit(url('localhost', '/inactive'));
    try {
      await expect
        .poll(() => consoleLines.filter((line) => line.startsWith(PREFIX)))
        .toEqual([`${PREFIX}the chat is not active`]);
      expect(await p.locator('practice-chat-q7x').count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('works under a strict CSP: a nonce for scripts, no inline styles at all', async () => {
    const { context, page: p, consoleLines } = await visit(url('www.smile-dental.test', '/strict-csp'));
    try {
      await launcher(p).waitFor();
      expect(await launcher(p).evaluate((button) => getComputedStyle(button).backgroundColor)).toBe('rgb(29, 78, 216)');
      await launcher(p).click();
      await expect.poll(() => p.locator('practice-chat-q7x iframe').isVisible(), { timeout: 10_000 }).toBe(true);
      expect(consoleLines.filter((line) => /Content Security Policy/i.test(line))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("works under a policy that allows scripts from the relay's origin, with no nonce", async () => {
    const { context, page: p, consoleLines } = await visit(url('www.smile-dental.test', '/relay-csp'));
    try {
      await launcher(p).click();
      await expect.poll(() => p.locator('practice-chat-q7x iframe').isVisible(), { timeout: 10_000 }).toBe(true);
      expect(consoleLines.filter((line) => /Content Security Policy|Practice chat/i.test(line))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('survives a hostile page stylesheet and an overlay with the highest z-index', async () => {
    const { context, page: p } = await visit(url('www.smile-dental.test', '/hostile'));
    try {
      await launcher(p).waitFor();
      const box = await launcher(p).boundingBox();
      expect(box).toMatchObject({ width: 56, height: 56 });
      expect(await launcher(p).evaluate((button) => getComputedStyle(button).backgroundColor)).toBe('rgb(29, 78, 216)');
      // A real click at the launcher's position reaches the launcher, not the overlay.
      await launcher(p).click();
      await expect.poll(() => p.locator('practice-chat-q7x iframe').isVisible(), { timeout: 10_000 }).toBe(true);
    } finally {
      await context.close();
    }
  });

  it('open(), close() and destroy() work, and destroy() leaves the page as it was', async () => {
    const { context, page: p } = await visit(url('www.smile-dental.test'));
    try {
      await launcher(p).waitFor();
      const before = await p.evaluate(() => ({ globals: Object.keys(window).length }));
      await p.evaluate(() => (window as unknown as { PracticeChat: { open(): void } }).PracticeChat.open());
      await expect.poll(() => p.locator('practice-chat-q7x iframe').isVisible(), { timeout: 10_000 }).toBe(true);
      expect(await launcher(p).getAttribute('aria-expanded')).toBe('true');
      await p.evaluate(() => (window as unknown as { PracticeChat: { close(): void } }).PracticeChat.close());
      await expect.poll(() => p.locator('practice-chat-q7x iframe').isVisible()).toBe(false);
      await p.evaluate(() => (window as unknown as { PracticeChat: { destroy(): void } }).PracticeChat.destroy());
      expect(await p.locator('practice-chat-q7x').count()).toBe(0);
      const after = await p.evaluate(() => ({ globals: Object.keys(window).length, api: 'PracticeChat' in window }));
      expect(after).toEqual({ globals: before.globals - 1, api: false });
    } finally {
      await context.close();
    }
  });

  it('gives one widget when the tag is pasted twice', async () => {
    const { context, page: p } = await visit(url('www.smile-dental.test', '/twice'));
    try {
      await launcher(p).waitFor();
      await p.waitForTimeout(300);
      expect(await p.locator('practice-chat-q7x').count()).toBe(1);
    } finally {
      await context.close();
    }
  });

  it('lets keyboard users reach the launcher and open the chat', async () => {
    const { context, page: p } = await visit(url('www.smile-dental.test'));
    try {
      await launcher(p).waitFor();
      await p.keyboard.press('Tab'); // the page's own link
      await p.keyboard.press('Tab'); // the launcher
      expect(await p.evaluate(() => document.activeElement?.tagName)).toBe('PRACTICE-CHAT-Q7X');
      const ring = await launcher(p).evaluate((button) => getComputedStyle(button).outlineStyle);
      expect(ring).toBe('solid');
      await p.keyboard.press('Enter');
      await expect.poll(() => launcher(p).getAttribute('aria-expanded')).toBe('true');
      await expect.poll(() => p.locator('practice-chat-q7x iframe').isVisible(), { timeout: 10_000 }).toBe(true);
    } finally {
      await context.close();
    }
  });

  // Issue 11 moved the frame's creation from "at idle" to "on intent" after a trace showed it the largest cost on the
  // page's main thread; this test pinned "at idle" and now pins "on intent" (still never before the page has loaded).
  it('creates the frame lazily: never before the page has loaded, and only when the visitor comes near the launcher', async () => {
    const { context, page: p } = await openPage(browser);
    const requested: string[] = [];
    p.on('request', (request) => requested.push(new URL(request.url()).pathname));
    try {
      // Instrument the page before anything runs: when was the load event, and when was the first iframe created?
      await p.addInitScript(() => {
        const marks: Record<string, number> = {};
        (window as unknown as { marks: Record<string, number> }).marks = marks;
        addEventListener('load', () => (marks.load = performance.now()));
        const create = Document.prototype.createElement;
        Document.prototype.createElement = function (this: Document, name: string, options?: ElementCreationOptions) {
          if (name.toLowerCase() === 'iframe' && marks.iframe === undefined) marks.iframe = performance.now();
          return create.call(this, name, options);
        } as typeof Document.prototype.createElement;
      });
      await p.goto(url('www.smile-dental.test'), { waitUntil: 'load' });
      await launcher(p).waitFor();
      // Loaded and idle, nobody near the launcher: no frame (the old loader created it within a few seconds here).
      await p.waitForTimeout(3000);
      expect(await p.locator('practice-chat-q7x iframe').count()).toBe(0);
      // Nor the frame's code, the loader's second file.
      expect(requested.filter((path) => path.includes('loader-frame'))).toEqual([]);
      const globals = await p.evaluate(() => Object.keys(window));
      await launcher(p).hover();
      await expect.poll(() => p.locator('practice-chat-q7x iframe').count(), { timeout: 10_000 }).toBe(1);
      // It came once, and left nothing in the page: its script element is gone, and no global was added.
      expect(requested.filter((path) => path.includes('loader-frame'))).toHaveLength(1);
      expect(await p.evaluate(() => document.querySelectorAll('script:not([data-client-id])').length)).toBe(0);
      expect(await p.evaluate(() => Object.keys(window))).toEqual(globals);
      const marks = await p.evaluate(() => (window as unknown as { marks: { load: number; iframe: number } }).marks);
      expect(marks.iframe).toBeGreaterThan(marks.load);
    } finally {
      await context.close();
    }
  });

  it("takes a finger's touch on the launcher as intent, before any tap or click", async () => {
    const context = await browser.newContext({ hasTouch: true, isMobile: true, viewport: { width: 390, height: 844 } });
    try {
      const p = await context.newPage();
      await p.goto(url('www.smile-dental.test'), { waitUntil: 'load' });
      await launcher(p).waitFor();
      const box = (await launcher(p).boundingBox())!;
      const point = { x: box.x + box.width / 2, y: box.y + box.height / 2, id: 1 };
      // A touch that lands on the launcher and slides off, as a scroll that began there does: no tap, no click.
      const cdp = await context.newCDPSession(p);
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [point] });
      await expect.poll(() => p.locator('practice-chat-q7x iframe').count(), { timeout: 10_000 }).toBe(1);
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ ...point, y: point.y - 300 }] });
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
      // Made, not opened.
      expect(await p.locator('practice-chat-q7x button').getAttribute('aria-expanded')).toBe('false');
    } finally {
      await context.close();
    }
  });
});
