// Where the panel covers the practice's page, in the browser engine of this run (BROWSER_ENGINE: chromium by default,
// firefox, webkit; npm test runs this file in each): small screens, narrow or short, get the panel over the whole
// viewport (a phone held sideways, 844×390, as a phone upright does), and while it covers the page the page behind it
// and the launcher under it are inert, until the panel closes; a large screen keeps the corner panel and touches
// nothing of the page. The page is www.smile-dental.test, the relay on another site, as in the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHostPages, type HostPageServer } from './harness.ts';
import { launchEngine, type Engine, type Tab } from './engines/index.ts';
import { startProduct } from '../support/product.ts';

let engine: Engine;
let product: Awaited<ReturnType<typeof startProduct>>;
let host: HostPageServer;

const relay = () => `http://chat.vendor-relay.test:${new URL(product.relayUrl).port}`;
// A practice's page with its own inert part (a closed drawer), which must stay inert after the panel closes.
const practicePage = () =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Smile Dental</title></head><body>
<header><a href="/">Smile Dental</a></header><main><h1>Smile Dental</h1><a href="/services">Our services</a></main>
<nav class="drawer" inert><a href="/book">Book a visit</a></nav>
<script async src="${relay()}/loader.js" data-client-id="smile-dental"></script></body></html>`;

beforeAll(async () => {
  [engine, product] = await Promise.all([launchEngine(), startProduct({ relayHost: 'chat.vendor-relay.test' })]);
  host = await serveHostPages({ '/': () => ({ body: practicePage() }) });
}, 60_000);
afterAll(async () => {
  await Promise.all([engine?.close(), product?.close(), host?.close()]);
});

/** The frame's box against the viewport, and what of the page is inert, and where focus is. */
const state = (tab: Tab) =>
  tab.evaluate(() => {
    const element = document.querySelector('practice-chat-q7x')!;
    const frame = element.shadowRoot!.querySelector('iframe');
    const box = frame?.getBoundingClientRect();
    return {
      // To the pixel: WebKit draws 100vw a fraction of a pixel narrower than innerWidth.
      fills:
        !!box &&
        box.width > 0 &&
        Math.round(box.width) === innerWidth &&
        Math.round(box.height) === innerHeight &&
        box.top === 0,
      inert: [
        ...[...document.body.children].filter((child) => child !== element && child.tagName !== 'SCRIPT'),
        element.shadowRoot!.querySelector('button')!,
      ]
        .filter((node) => (node as HTMLElement).inert)
        .map((node) => node.tagName.toLowerCase()),
      focus: document.activeElement === element ? `launcher ${element.shadowRoot!.activeElement?.tagName}` : null,
    };
  });

async function openPanel(tab: Tab) {
  await tab.goto(`http://www.smile-dental.test:${host.port}/`);
  await expect
    .poll(
      () => tab.evaluate(() => !!document.querySelector('practice-chat-q7x')?.shadowRoot?.querySelector('button')),
      {
        timeout: 10_000,
      },
    )
    .toBe(true);
  await tab.click({ launcher: true });
  await expect
    .poll(() => tab.evaluateInFrame(() => !!document.querySelector('textarea')), { timeout: 10_000 })
    .toBe(true);
}

describe(`the panel over the page, in ${process.env.BROWSER_ENGINE ?? 'chromium'}`, { timeout: 60_000 }, () => {
  it('fills a short screen (a phone held sideways, 844×390) and makes the page behind it inert until it closes', async () => {
    const tab = await engine.newTab({ width: 844, height: 390 });
    try {
      await openPanel(tab);
      await expect.poll(() => state(tab)).toMatchObject({ fills: true, inert: ['header', 'main', 'nav', 'button'] });
      await tab.press('Escape');
      // Only the page's own inert part is left, and focus is back on the launcher.
      await expect.poll(() => state(tab)).toEqual({ fills: false, inert: ['nav'], focus: 'launcher BUTTON' });
    } finally {
      await tab.close();
    }
  });

  it('keeps the corner panel on a large screen, and leaves the page as it is', async () => {
    const tab = await engine.newTab({ width: 1024, height: 768 });
    try {
      await openPanel(tab);
      expect(await state(tab)).toMatchObject({ fills: false, inert: ['nav'] });
    } finally {
      await tab.close();
    }
  });
});
