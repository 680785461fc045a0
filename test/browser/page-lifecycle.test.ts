// The widget through the page's life, in the browser engine of this run (BROWSER_ENGINE: chromium by default, firefox,
// webkit; npm run test:engines runs this file in each): a page that swaps its <body> as Astro's view transitions do
// (imitated: the astro package is a whole build toolchain; Turbo Drive, htmx and swup run for real in
// real-navigations.test.ts), one that takes the widget's element out, and one that
// renders its whole document again as a framework's hydration does, keep one launcher, with the same unread count, and
// an open conversation goes on with every message once; a page that enforces Trusted Types, or allows scripts by a
// nonce with 'strict-dynamic', opens the panel with nothing reported; and the tag works wherever and however it is
// pasted: under a <base> that points elsewhere, in quirks mode, in an XHTML page, inserted after load by a tag manager,
// let through by a consent manager, pasted twice, deferred in <head>. The page is www.smile-dental.test, the relay on
// another site, as in the field.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHostPages, type HostPageServer } from './harness.ts';
import { launchEngine, type Engine, type Tab } from './engines/index.ts';
import { startProduct } from '../support/product.ts';

let engine: Engine;
let product: Awaited<ReturnType<typeof startProduct>>;
let host: HostPageServer;
/** A site that a page's <base> points to, which records whatever it is asked for (nothing, when all is well). */
let elsewhere: Server;
const askedElsewhere: string[] = [];
const NONCE = 'r4nd0m';

const relay = () => `http://chat.vendor-relay.test:${new URL(product.relayUrl).port}`;
const tag = (attributes = 'async') =>
  `<script ${attributes} src="${relay()}/loader.js" data-client-id="smile-dental"></script>`;
const practicePage = (head = '') =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Smile Dental</title>${head}</head><body>
<main><h1>Smile Dental</h1><a href="/services">Our services</a></main>
${tag()}</body></html>`;

// Before any tag: the page's errors and the loader's console lines, read from the DOM (WebKit reports no console
// message in automation sessions). The loader keeps the console.warn it finds when it runs. No `<` or `&`: it is
// inline in an XHTML page too.
const RECORDER = `<script nonce="${NONCE}">
window.pageErrors = []; window.lines = [];
addEventListener('error', (event) => pageErrors.push(String(event.message)));
addEventListener('unhandledrejection', (event) => pageErrors.push(String(event.reason)));
const warn = console.warn;
console.warn = (...args) => { lines.push(args.join(' ')); warn.apply(console, args); };
</script>`;

/** An HTML page with the recorder first in <head>, `head` after it, and `body` after the page's content. */
const pastedPage = ({ head = '', body = '', doctype = '<!doctype html>' }) =>
  `${doctype}<html lang="en"><head><meta charset="utf-8"><title>Smile Dental</title>${RECORDER}${head}</head><body>
<main><h1>Smile Dental</h1><a href="/services">Our services</a></main>${body}</body></html>`;

// The relay by its loopback address here: a frame's own embedder policy counts only in a secure context, which the
// relay's https address is in the field and loopback is in a test (Firefox and WebKit show no panel from a relay on
// plain http://chat.vendor-relay.test in an isolated page; Chromium does).
const isolatedPage = (embedder: string) => ({
  body: pastedPage({ body: tag().replace(relay(), product.relayUrl) }),
  headers: { 'Cross-Origin-Embedder-Policy': embedder, 'Cross-Origin-Opener-Policy': 'same-origin' },
});

/** The script a tag manager runs to make the loader's tag. */
const insertTag = () => `const tag = document.createElement('script');
tag.src = ${JSON.stringify(`${relay()}/loader.js`)};
tag.setAttribute('data-client-id', 'smile-dental');
document.head.append(tag);`;

/**
 * Where and how practices paste the tag: each page gets one launcher whose click opens the panel, with no error and
 * no console line.
 */
const PASTED: Record<string, () => { body: string; headers?: Record<string, string> }> = {
  // Every relative address on the page resolves against another site; the loader's own are absolute.
  '/base-elsewhere': () => ({
    body: pastedPage({
      // The page names its icon: WebKit would otherwise ask the <base>'s site for /favicon.ico itself.
      head: `<base href="http://cdn.elsewhere.test:${(elsewhere.address() as AddressInfo).port}/assets/"><link rel="icon" href="data:,">`,
      body: tag(),
    }),
  }),
  // No doctype: quirks mode, as old hand-made sites still are.
  '/quirks': () => ({ body: pastedPage({ doctype: '', body: tag() }) }),
  // XHTML, served as XML, with the tag in its head and again at the end of its body (a theme's header and footer).
  '/xhtml': () => ({
    body: `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" lang="en"><head><meta charset="utf-8"/><title>Smile Dental</title>${RECORDER}${tag('async="async"')}</head>
<body><main><h1>Smile Dental</h1><a href="/services">Our services</a></main>${tag('async="async"')}</body></html>`,
    headers: { 'Content-Type': 'application/xhtml+xml; charset=utf-8' },
  }),
  // A tag manager's tag, run once the page has loaded: it makes the script element itself.
  '/tag-manager': () => ({
    body: pastedPage({
      head: `<script>addEventListener('load', () => { ${insertTag()} });</script>`,
    }),
  }),
  // A consent manager holds the tag back as text/plain until the visitor has agreed (here: agreed on an earlier
  // visit), then makes a new, runnable element with the same attributes in its place.
  '/consent-gate': () => ({
    body: pastedPage({
      body: `${tag('type="text/plain" data-consent="functional" async')}
<script>document.querySelectorAll('script[type="text/plain"][data-consent]').forEach((held) => {
  const tag = document.createElement('script');
  for (const { name, value } of held.attributes) if (name !== 'type') tag.setAttribute(name, value);
  held.replaceWith(tag);
});</script>`,
    }),
  }),
  // Pasted twice: in the head by a plugin and in the body by hand.
  '/twice': () => ({ body: pastedPage({ head: tag(), body: tag() }) }),
  // Deferred in <head>: it runs once the page is parsed.
  '/defer-head': () => ({ body: pastedPage({ head: tag('defer') }) }),
  // A strict policy: scripts by nonce with 'strict-dynamic' (what loads the panel's code then needs no nonce of its
  // own), no inline styles, the relay named for what it serves.
  '/strict-dynamic': () => ({
    body: pastedPage({ body: tag(`async nonce="${NONCE}"`) }),
    headers: {
      'Content-Security-Policy': `script-src 'nonce-${NONCE}' 'strict-dynamic'; style-src 'none'; connect-src ${relay()}; frame-src ${relay()}; img-src ${relay()}; base-uri 'none'; object-src 'none'`,
    },
  }),
};

beforeAll(async () => {
  // The service's events wake the relay's watch as soon as the bot or a team member has written, as with
  // UPSTREAM_EVENTS_SECRET set (npm start sends them); without them each reply and the unread count wait for the
  // watch's next read.
  [engine, product] = await Promise.all([
    launchEngine(),
    startProduct({ relayHost: 'chat.vendor-relay.test', upstreamEvents: true }),
  ]);
  elsewhere = createServer((request, response) => {
    askedElsewhere.push(request.url ?? '');
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
  host = await serveHostPages({
    ...PASTED,
    '/': () => ({ body: practicePage() }),
    // Cross-origin isolated pages, as pages that use SharedArrayBuffer are: every frame and resource must agree.
    '/require-corp': () => isolatedPage('require-corp'),
    '/credentialless': () => isolatedPage('credentialless'),
    '/rendered-again': () => ({ body: pastedPage({ body: tag() }) }),
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
  await Promise.all([
    engine?.close(),
    product?.close(),
    host?.close(),
    new Promise((resolve) => (elsewhere ? elsewhere.close(resolve) : resolve(undefined))),
  ]);
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
  it("a page that swaps its <body> as Astro's view transitions do keeps one launcher with its unread count, and the conversation goes on", async () => {
    const tab = await engine.newTab();
    try {
      await loaded(tab);
      await openPanel(tab);
      await send(tab, 'Do you see children?');
      await expect.poll(async () => (await messages(tab, '.bot')).length, { timeout: 10_000 }).toBeGreaterThan(0);
      await tab.press('Escape');
      teamMemberWrites('Do you see children?', 'Yes, from age three.');
      await expect.poll(async () => (await widget(tab)).badge, { timeout: 25_000 }).toBe('1');

      // What Astro's client router does on a visit: the new page's <body> replaces the old one, inside a view
      // transition where the browser has them. Until the transition has finished, the browser gives clicks to none of
      // the page's elements, so the patient's next click comes after it.
      await tab.evaluate(async () => {
        const next = document.createElement('body');
        next.innerHTML = '<main><h1>Our services</h1></main>';
        const swap = () => document.body.replaceWith(next);
        const page = document as Document & {
          startViewTransition?: (swap: () => void) => { finished: Promise<void> };
        };
        if (page.startViewTransition) await page.startViewTransition(swap).finished;
        else swap();
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

  it('a page that renders its whole document again, as a framework hydrating it does: the launcher comes back, and the open conversation goes on', async () => {
    const tab = await engine.newTab();
    try {
      await loaded(tab, '/rendered-again');
      await openPanel(tab);
      await send(tab, 'Is the office open on Saturday?');
      await expect.poll(async () => (await messages(tab, '.bot')).length, { timeout: 10_000 }).toBeGreaterThan(0);

      // What a framework does when its hydration of the document fails: the nodes it did not render go (the widget's
      // element among them), then it renders <html>'s children again, in one step.
      await tab.evaluate(() => {
        document.querySelector('practice-chat-q7x')!.remove();
        const head = document.createElement('head');
        const body = document.createElement('body');
        head.append(Object.assign(document.createElement('title'), { textContent: 'Smile Dental' }));
        body.append(Object.assign(document.createElement('main'), { textContent: 'Rendered again' }));
        document.documentElement.replaceChildren(head, body);
      });
      await expect.poll(async () => (await widget(tab)).launchers, { timeout: 10_000 }).toBe(1);
      expect(await widget(tab)).toMatchObject({ marked: true, framed: true });
      await expect
        .poll(() => messages(tab, '.visitor').catch(() => []), { timeout: 15_000 })
        .toEqual(['Is the office open on Saturday?']);
      await send(tab, 'And on Sunday?');
      expect(await messages(tab, '.visitor')).toEqual(['Is the office open on Saturday?', 'And on Sunday?']);
      expect(await tab.evaluate(() => (window as unknown as { pageErrors: string[] }).pageErrors)).toEqual([]);
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

describe(`the tag wherever and however it is pasted, in ${process.env.BROWSER_ENGINE ?? 'chromium'}`, {
  timeout: 60_000,
}, () => {
  it.each(Object.keys(PASTED))(
    '%s: one launcher, whose click opens the panel; no error, no console line',
    async (path) => {
      const tab = await engine.newTab();
      askedElsewhere.length = 0;
      try {
        await tab.goto(`http://www.smile-dental.test:${host.port}${path}`);
        await expect.poll(async () => (await widget(tab)).launchers, { timeout: 10_000 }).toBe(1);
        await openPanel(tab);
        expect(await widget(tab)).toMatchObject({ launchers: 1, framed: true });
        expect(
          await tab.evaluate(() => {
            const page = window as unknown as { pageErrors: string[]; lines: string[] };
            return { errors: page.pageErrors, lines: page.lines };
          }),
        ).toEqual({ errors: [], lines: [] });
        expect(askedElsewhere).toEqual([]);
      } finally {
        await tab.close();
      }
    },
  );

  it.each(['require-corp', 'credentialless'])(
    'a cross-origin isolated page (Cross-Origin-Embedder-Policy: %s): a click opens the panel; no error, no console line',
    async (embedder) => {
      const tab = await engine.newTab();
      try {
        // localhost: a secure context, which isolation needs.
        await tab.goto(`http://localhost:${host.port}/${embedder}`);
        await expect.poll(async () => (await widget(tab)).launchers, { timeout: 10_000 }).toBe(1);
        // Every engine knows require-corp; WebKit does not know credentialless, and leaves that page as it is.
        if (embedder === 'require-corp') expect(await tab.evaluate(() => crossOriginIsolated)).toBe(true);
        await openPanel(tab);
        expect(
          await tab.evaluate(() => {
            const page = window as unknown as { pageErrors: string[]; lines: string[] };
            return { errors: page.pageErrors, lines: page.lines };
          }),
        ).toEqual({ errors: [], lines: [] });
      } finally {
        await tab.close();
      }
    },
  );
});
