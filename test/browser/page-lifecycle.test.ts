// The widget through the page's life, in the browser engine of this run (BROWSER_ENGINE: chromium by default, firefox,
// webkit; npm run test:engines runs this file in each): a page that swaps its <body> as Turbo Drive does (htmx's
// hx-boost, swup, Astro's view transitions and Barba alike), and one that takes the widget's element out, keep one
// launcher, with the same unread count, and an open conversation goes on with every message once; and a page that
// enforces Trusted Types opens the panel with nothing reported. The page is www.smile-dental.test, the relay on
// another site, as in the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHostPages, type HostPageServer } from './harness.ts';
import { launchEngine, type Engine, type Tab } from './engines/index.ts';
import { startProduct } from '../support/product.ts';

let engine: Engine;
let product: Awaited<ReturnType<typeof startProduct>>;
let host: HostPageServer;

const relay = () => `http://chat.vendor-relay.test:${new URL(product.relayUrl).port}`;
const practicePage = (head = '') =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Smile Dental</title>${head}</head><body>
<main><h1>Smile Dental</h1><a href="/services">Our services</a></main>
<script async src="${relay()}/loader.js" data-client-id="smile-dental"></script></body></html>`;

beforeAll(async () => {
  [engine, product] = await Promise.all([launchEngine(), startProduct({ relayHost: 'chat.vendor-relay.test' })]);
  host = await serveHostPages({
    '/': () => ({ body: practicePage() }),
    // The page records every CSP violation it is told of, from before the tag runs.
    '/trusted-types': () => ({
      body: practicePage(
        `<script>window.violations = []; document.addEventListener('securitypolicyviolation', (event) => violations.push(event.violatedDirective + ' ' + event.blockedURI));</script>`,
      ),
      headers: { 'Content-Security-Policy': "require-trusted-types-for 'script'; trusted-types 'none'" },
    }),
  });
}, 60_000);
afterAll(async () => {
  await Promise.all([engine?.close(), product?.close(), host?.close()]);
});

/** The launchers on the page, and the first one's count, name, and whether it is the element the test marked. */
const widget = (tab: Tab) =>
  tab.evaluate(() => {
    const hosts = [...document.querySelectorAll('practice-chat-q7x')] as (HTMLElement & { marked?: boolean })[];
    const shadow = hosts[0]?.shadowRoot;
    return {
      launchers: hosts.length,
      marked: !!hosts[0]?.marked,
      badge: shadow?.querySelector('span')?.hidden === false ? shadow.querySelector('span')!.textContent : null,
      label: shadow?.querySelector('button')?.getAttribute('aria-label') ?? null,
      framed: !!shadow?.querySelector('iframe'),
    };
  });
const messages = (tab: Tab, kind: string) =>
  tab.evaluateInFrame(
    (selector) => [...document.querySelectorAll(selector)].map((node) => node.textContent ?? ''),
    `.message${kind} .text`,
  );

async function openPanel(tab: Tab) {
  await tab.click({ launcher: true });
  await expect
    .poll(() => tab.evaluateInFrame(() => !!document.querySelector('textarea')).catch(() => false), { timeout: 15_000 })
    .toBe(true);
}

async function send(tab: Tab, text: string) {
  await tab.click({ css: 'textarea' });
  await tab.type(text);
  await expect.poll(() => tab.evaluateInFrame(() => document.querySelector('textarea')!.value)).toBe(text);
  await tab.press('Enter');
  await expect.poll(() => messages(tab, '.visitor'), { timeout: 10_000 }).toContain(text);
}

/** What a team member writes in the practice's own tool, stored upstream in the conversation with that message. */
function teamMemberWrites(visitorText: string, text: string) {
  const id = [...product.simulator.store.messages.entries()].find(([, list]) =>
    list.some((message) => message.text === visitorText),
  )?.[0];
  if (id === undefined || !product.simulator.writeAs(id, 'agent', text)) throw new Error('no such conversation');
}

async function loaded(tab: Tab, path = '/') {
  await tab.goto(`http://www.smile-dental.test:${host.port}${path}`);
  await expect.poll(async () => (await widget(tab)).launchers, { timeout: 10_000 }).toBe(1);
  await tab.evaluate(() => {
    (document.querySelector('practice-chat-q7x') as HTMLElement & { marked?: boolean }).marked = true;
  });
}

describe(`the widget through the page's life, in ${process.env.BROWSER_ENGINE ?? 'chromium'}`, {
  timeout: 60_000,
}, () => {
  it('a page that swaps its <body> keeps one launcher with its unread count, and the conversation goes on', async () => {
    const tab = await engine.newTab();
    try {
      await loaded(tab);
      await openPanel(tab);
      await send(tab, 'Do you see children?');
      await expect.poll(async () => (await messages(tab, '.bot')).length, { timeout: 10_000 }).toBeGreaterThan(0);
      await tab.press('Escape');
      teamMemberWrites('Do you see children?', 'Yes, from age three.');
      await expect.poll(async () => (await widget(tab)).badge, { timeout: 25_000 }).toBe('1');

      // What Turbo Drive does on a visit: a new <body> in place of the old one.
      await tab.evaluate(() => {
        const next = document.createElement('body');
        next.innerHTML = '<main><h1>Our services</h1></main>';
        document.documentElement.replaceChild(next, document.body);
      });
      expect(await widget(tab)).toMatchObject({ launchers: 1, marked: true, badge: '1', label: 'Chat with Sunny (1)' });

      await openPanel(tab);
      expect(await messages(tab, '.visitor')).toEqual(['Do you see children?']);
      expect(await messages(tab, '.agent')).toEqual(['Yes, from age three.']);
      const replies = (await messages(tab, '.bot')).length;
      await send(tab, 'Thank you');
      await expect.poll(async () => (await messages(tab, '.bot')).length, { timeout: 10_000 }).toBeGreaterThan(replies);
      expect(await messages(tab, '.visitor')).toEqual(['Do you see children?', 'Thank you']);
      expect((await widget(tab)).launchers).toBe(1);
    } finally {
      await tab.close();
    }
  });

  it("a page that takes the widget's element out gets it back, and the open conversation goes on in a frame loaded again", async () => {
    const tab = await engine.newTab();
    try {
      await loaded(tab);
      await openPanel(tab);
      await send(tab, 'Can I book a cleaning?');
      await expect.poll(async () => (await messages(tab, '.bot')).length, { timeout: 10_000 }).toBeGreaterThan(0);
      const replies = await messages(tab, '.bot');

      // What a script that tidies the page does: the element goes, and comes back by itself.
      await tab.evaluate(() => document.querySelector('practice-chat-q7x')!.remove());
      await expect.poll(async () => (await widget(tab)).launchers, { timeout: 10_000 }).toBe(1);
      expect(await widget(tab)).toMatchObject({ marked: true, framed: true });
      // The frame loaded again, resumed the conversation from its own storage, and was told it is open.
      await expect
        .poll(() => messages(tab, '.visitor').catch(() => []), { timeout: 15_000 })
        .toEqual(['Can I book a cleaning?']);
      await expect.poll(() => messages(tab, '.bot')).toEqual(replies);
      await send(tab, 'Next Tuesday, please');
      expect(await messages(tab, '.visitor')).toEqual(['Can I book a cleaning?', 'Next Tuesday, please']);
      expect(
        [...product.simulator.store.messages.values()]
          .flat()
          .filter((message) => message.sender === 'visitor' && /cleaning|Tuesday/.test(message.text))
          .map((message) => message.text),
      ).toEqual(['Can I book a cleaning?', 'Next Tuesday, please']);
    } finally {
      await tab.close();
    }
  });

  it('a page that enforces Trusted Types: a click opens the panel, and no violation is reported', async () => {
    const tab = await engine.newTab();
    try {
      await loaded(tab, '/trusted-types');
      await openPanel(tab);
      expect(await tab.evaluate(() => (window as unknown as { violations: string[] }).violations)).toEqual([]);
    } finally {
      await tab.close();
    }
  });
});
