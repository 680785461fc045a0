// The widget on practice sites that navigate by swapping <body>, driven by the real libraries, installed from the npm
// registry at pinned versions (package.json's devDependencies) and served as published (Astro's router as Astro's own
// build bundles it into a site) from the practice's own site (www.smile-dental.test), the relay on another (chat.vendor-relay.test), in the browser engine of this run
// (BROWSER_ENGINE: chromium by default; npm run test:engines runs this file in Firefox and WebKit too). On each, a
// patient opens the panel and gets a reply, clicks one of the page's links, and the library navigates without loading
// the page again; then the launcher is still there, one of it, and the open conversation goes on with every message
// once (with Astro, through back and forward too); the page raised nothing, logged nothing, and no global or built-in
// prototype changed but PracticeChat. React
// 18 and 19, hydrating a root in <body> or the whole document once the launcher is in, keep their app working beside
// the widget, with no hydration error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHostPages, type HostPageServer } from './harness.ts';
import { launchEngine, type Engine, type Tab } from './engines/index.ts';
import { startProduct } from '../support/product.ts';
import {
  astroSiteRoutes,
  PAGE_RECORDER,
  pastedTag,
  readPageReport,
  vendorRoutes,
  WIDGET_GLOBALS,
  withoutDriverGlobals,
  type Route,
} from '../support/real-packages.ts';

let engine: Engine;
let product: Awaited<ReturnType<typeof startProduct>>;
let host: HostPageServer;

const relay = () => `http://chat.vendor-relay.test:${new URL(product.relayUrl).port}`;

interface Site {
  /** What goes in <head> after the recorder: the library. */
  head: string;
  /** Attributes of <body>. */
  bodyAttributes?: string;
  /** Wraps the page's content (the part the library swaps). */
  content?: (inner: string) => string;
  /** Scripts after the content and before the tag: the library started. */
  start?: string;
}

const SITES: Record<string, Site> = {
  // Turbo Drive starts by itself: each link's visit fetches the next page and puts its <body> in place of this one,
  // running the scripts in it (the tag among them, again).
  'Turbo Drive (@hotwired/turbo@8.0.23)': { head: '<script src="/vendor/turbo.js"></script>' },
  // hx-boost: each link's visit fetches the next page and swaps the body's content, running its scripts.
  'htmx hx-boost (htmx.org@2.0.11)': {
    head: '<script src="/vendor/htmx.js"></script>',
    bodyAttributes: ' hx-boost="true"',
  },
  // swup swaps its container, here without animations (no transition CSS to wait for).
  'swup (swup@4.10.0)': {
    head: '<script src="/vendor/swup.js"></script>',
    content: (inner) => `<div id="swup">${inner}</div>`,
    start: '<script>window.swup = new Swup({ animationSelector: false });</script>',
  },
};

// Astro's client router (<ClientRouter />), in a site Astro itself builds (test/support/astro-site): each link's visit
// fetches the next page and swaps its <body> in, inside a view transition where the browser has them (Chromium), with
// Astro's fallback animation where not, running the new body's scripts that have not run yet.
const ASTRO = 'Astro view transitions (astro@5.18.2, <ClientRouter />)';
// The same, with the tag inside an element Astro's router keeps from page to page (transition:persist): the router
// moves that element into each new body instead of the new page's copy.
const ASTRO_PERSIST = 'Astro/persist (the tag in a transition:persist element, astro@5.18.2, <ClientRouter />)';

/** An Astro page as built, with the recorder after its <title> and the practice's tag before </body>. */
const astroPage = (html: string) => {
  const withRecorder = html.replace('</title>', `</title>${PAGE_RECORDER}`);
  const kept = withRecorder.indexOf('id="practice-chat-tag"');
  if (kept < 0) return withRecorder.replace('</body>', `${pastedTag(relay())}</body>`);
  const inside = withRecorder.indexOf('>', kept) + 1;
  return withRecorder.slice(0, inside) + pastedTag(relay()) + withRecorder.slice(inside);
};

const slug = (name: string) => name.split(' ')[0]!.toLowerCase();

/** One page of a site: `title` in its heading, a link to the other page. */
function sitePage(site: Site, base: string, title: string, next: string) {
  const inner = `<main><h1>${title}</h1><a id="next" href="${base}${next}">Next page</a></main>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>${PAGE_RECORDER}${site.head}</head><body${site.bodyAttributes ?? ''}>
${site.content ? site.content(inner) : inner}${site.start ?? ''}${pastedTag(relay())}</body></html>`;
}

// A server-rendered React root, exactly the markup test/support/react-app.js renders first.
const reactPage = (version: 18 | 19) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Smile Dental</title>${PAGE_RECORDER}</head><body>
<main><h1>Smile Dental</h1><div id="root"><button type="button" id="book">Booked 0</button></div></main>
<script src="/vendor/react-${version}-app.js"></script>${pastedTag(relay())}</body></html>`;

// The whole document server-rendered, exactly as test/support/react-app.js's Page renders it, with nothing between
// React's own nodes: what the page adds (the recorder, the scripts, the tag) comes after them in <head> and <body>.
// The app hydrates the document once the launcher is in <html>.
const reactDocument = (version: 18 | 19) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Smile Dental</title>${PAGE_RECORDER}</head><body><main><h1>Smile Dental</h1><button type="button" id="book">Booked 0</button></main><script src="/vendor/react-${version}-app.js" data-root="document" data-after="practice-chat-q7x"></script>${pastedTag(relay())}</body></html>`;

beforeAll(async () => {
  const [launched, started, vendor, astro] = await Promise.all([
    launchEngine(),
    // The service's events wake the relay's watch as soon as the bot has replied, as with UPSTREAM_EVENTS_SECRET set
    // (npm start sends them); without them each reply waits for the watch's next read, idle time per message here.
    startProduct({ relayHost: 'chat.vendor-relay.test', upstreamEvents: true }),
    vendorRoutes(),
    astroSiteRoutes(astroPage),
  ]);
  [engine, product] = [launched, started];
  const pages: Record<string, Route> = {};
  for (const [name, site] of Object.entries(SITES)) {
    const base = `/${slug(name)}/`;
    pages[base] = () => ({ body: sitePage(site, base, 'Smile Dental', 'services') });
    pages[`${base}services`] = () => ({ body: sitePage(site, base, 'Our services', '') });
  }
  pages['/react-18'] = () => ({ body: reactPage(18) });
  pages['/react-19'] = () => ({ body: reactPage(19) });
  pages['/react-18-document'] = () => ({ body: reactDocument(18) });
  pages['/react-19-document'] = () => ({ body: reactDocument(19) });
  // A practice's site has an icon, which browsers ask for with the first page they show.
  pages['/favicon.ico'] = () => ({ body: '', headers: { 'Content-Type': 'image/x-icon' } });
  host = await serveHostPages({ ...vendor, ...astro, ...pages });
}, 60_000);
afterAll(async () => {
  await Promise.all([engine?.close(), product?.close(), host?.close()]);
});

/** The launchers on the page, and whether the first is the element the test marked. */
const widget = (tab: Tab) =>
  tab.evaluate(() => {
    const hosts = [...document.querySelectorAll('practice-chat-q7x')] as (HTMLElement & { marked?: boolean })[];
    return {
      launchers: hosts.length,
      marked: !!hosts[0]?.marked,
      framed: !!hosts[0]?.shadowRoot?.querySelector('iframe'),
    };
  });
const messages = (tab: Tab, kind: string) =>
  tab.evaluateInFrame(
    (selector) => [...document.querySelectorAll(selector)].map((node) => node.textContent ?? ''),
    `.message${kind} .text`,
  );

/** The element, and the page itself, marked: a library's visit keeps both; a page loaded again keeps neither. */
const markWidgetAndDocument = (tab: Tab) =>
  tab.evaluate(() => {
    (document.querySelector('practice-chat-q7x') as HTMLElement & { marked?: boolean }).marked = true;
    (document as unknown as { sameDocument: boolean }).sameDocument = true;
  });

async function openPanel(tab: Tab) {
  await tab.click({ launcher: true });
  await expect
    .poll(() => tab.evaluateInFrame(() => document.querySelector('.greeting')?.textContent ?? '').catch(() => ''), {
      timeout: 15_000,
    })
    .toMatch(/^Hi, I'm Sunny/);
}

async function send(tab: Tab, text: string) {
  const replies = (await messages(tab, '.bot')).length;
  await tab.click({ css: 'textarea' });
  await tab.type(text);
  await expect.poll(() => tab.evaluateInFrame(() => document.querySelector('textarea')!.value)).toBe(text);
  await tab.press('Enter');
  await expect.poll(() => messages(tab, '.visitor'), { timeout: 10_000 }).toContain(text);
  await expect.poll(async () => (await messages(tab, '.bot')).length, { timeout: 10_000 }).toBeGreaterThan(replies);
}

/**
 * The page shown: its address, its heading, and whether Astro's view transition still runs (Astro marks <html> with
 * data-astro-transition until it is over; no other library here sets it). While a view transition runs, the browser
 * shows its pictures of the pages over them and hands them the clicks: a patient's click there goes nowhere.
 */
const shownPage = (tab: Tab) =>
  tab.evaluate(() => [
    location.pathname,
    document.querySelector('h1')?.textContent,
    document.documentElement.hasAttribute('data-astro-transition'),
  ]);

/** What the relay's upstream holds of the visitor's side: each message sent, once. */
const sentUpstream = (pattern: RegExp) =>
  [...product.simulator.store.messages.values()]
    .flat()
    .filter((message) => message.sender === 'visitor' && pattern.test(message.text))
    .map((message) => message.text);

/** The page's view of itself: errors, console lines, changed globals. */
const pageReport = async (tab: Tab) => withoutDriverGlobals(await tab.evaluate(readPageReport));

describe(`sites that swap <body> with a real library, in ${process.env.BROWSER_ENGINE ?? 'chromium'}`, {
  timeout: 60_000,
}, () => {
  // Astro's own link visit is the first step of its back-and-forward test below, with every check made here.
  it.each([...Object.keys(SITES), ASTRO_PERSIST])(
    '%s: after a link click the library navigated, the launcher is back, and the open conversation goes on',
    async (name) => {
      const base = `/${slug(name)}/`;
      const first = `${slug(name)}: do you see children?`;
      const second = `${slug(name)}: thank you`;
      const tab = await engine.newTab();
      try {
        await tab.goto(`http://www.smile-dental.test:${host.port}${base}`);
        await expect.poll(async () => (await widget(tab)).launchers, { timeout: 10_000 }).toBe(1);
        await markWidgetAndDocument(tab);
        await openPanel(tab);
        await send(tab, first);

        await tab.click({ inPage: '#next' });
        await expect
          .poll(() => shownPage(tab), { timeout: 10_000 })
          .toEqual([`${base}services`, 'Our services', false]);
        expect(await tab.evaluate(() => (document as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);

        await expect.poll(async () => (await widget(tab)).launchers, { timeout: 10_000 }).toBe(1);
        expect(await widget(tab)).toEqual({ launchers: 1, marked: true, framed: true });
        if (name === ASTRO_PERSIST) {
          // The tag the page started with, still in the element Astro's router kept.
          const kept = await tab.evaluate(
            () => !!document.querySelector('[data-astro-transition-persist] script[src$="/loader.js"]'),
          );
          expect(kept).toBe(true);
        }
        await expect.poll(() => messages(tab, '.visitor').catch(() => []), { timeout: 15_000 }).toEqual([first]);
        await send(tab, second);
        expect(await messages(tab, '.visitor')).toEqual([first, second]);
        expect(sentUpstream(new RegExp(`^${slug(name)}:`))).toEqual([first, second]);
        expect(await pageReport(tab)).toEqual({ errors: [], lines: [], changes: WIDGET_GLOBALS });
      } finally {
        await tab.close();
      }
    },
  );

  it(`${ASTRO}: after a link click the library navigated, the launcher is back, and the open conversation goes on; back and forward are Astro's visits too, and the launcher and the conversation stay through both`, async () => {
    const first = 'astro history: do you see children?';
    const second = 'astro history: thank you';
    const tab = await engine.newTab();
    const shown = () => shownPage(tab);
    const sameDocument = () => tab.evaluate(() => (document as unknown as { sameDocument?: boolean }).sameDocument);
    try {
      await tab.goto(`http://www.smile-dental.test:${host.port}/astro/`);
      await expect.poll(async () => (await widget(tab)).launchers, { timeout: 10_000 }).toBe(1);
      await markWidgetAndDocument(tab);
      await openPanel(tab);
      await send(tab, first);
      await tab.click({ inPage: '#next' });
      await expect.poll(shown, { timeout: 10_000 }).toEqual(['/astro/services', 'Our services', false]);
      expect(await sameDocument()).toBe(true);
      await expect.poll(async () => (await widget(tab)).launchers, { timeout: 10_000 }).toBe(1);
      expect(await widget(tab)).toEqual({ launchers: 1, marked: true, framed: true });
      await expect.poll(() => messages(tab, '.visitor').catch(() => []), { timeout: 15_000 }).toEqual([first]);

      // Astro's router takes the history entries it made (popstate) and swaps the body back, as for a link.
      await tab.evaluate(() => history.back());
      await expect.poll(shown, { timeout: 10_000 }).toEqual(['/astro/', 'Smile Dental', false]);
      expect(await sameDocument()).toBe(true);
      await expect.poll(async () => (await widget(tab)).launchers, { timeout: 10_000 }).toBe(1);
      expect(await widget(tab)).toEqual({ launchers: 1, marked: true, framed: true });
      await expect.poll(() => messages(tab, '.visitor').catch(() => []), { timeout: 15_000 }).toEqual([first]);

      await tab.evaluate(() => history.forward());
      await expect.poll(shown, { timeout: 10_000 }).toEqual(['/astro/services', 'Our services', false]);
      expect(await sameDocument()).toBe(true);
      expect(await widget(tab)).toEqual({ launchers: 1, marked: true, framed: true });
      await send(tab, second);
      expect(await messages(tab, '.visitor')).toEqual([first, second]);
      expect(sentUpstream(/^astro history:/)).toEqual([first, second]);
      expect(await pageReport(tab)).toEqual({ errors: [], lines: [], changes: WIDGET_GLOBALS });
    } finally {
      await tab.close();
    }
  });

  it.each([18, 19] as const)(
    'React %s hydrates the server markup beside the widget: its app works, and a message gets its reply',
    async (version) => {
      const tab = await engine.newTab();
      try {
        await tab.goto(`http://www.smile-dental.test:${host.port}/react-${version}`);
        await expect.poll(async () => (await widget(tab)).launchers, { timeout: 10_000 }).toBe(1);
        await openPanel(tab);
        await send(tab, `React ${version}: can I book online?`);
        await tab.click({ inPage: '#book' });
        await expect.poll(() => tab.evaluate(() => document.querySelector('#book')?.textContent)).toBe('Booked 1');
        expect((await widget(tab)).launchers).toBe(1);
        expect(await pageReport(tab)).toEqual({ errors: [], lines: [], changes: WIDGET_GLOBALS });
      } finally {
        await tab.close();
      }
    },
  );

  it.each([18, 19] as const)(
    'React %s hydrates the whole document after the launcher is in <html>: the app works, one launcher, a reply',
    async (version) => {
      const tab = await engine.newTab();
      try {
        await tab.goto(`http://www.smile-dental.test:${host.port}/react-${version}-document`);
        await expect.poll(async () => (await widget(tab)).launchers, { timeout: 10_000 }).toBe(1);
        await expect
          .poll(
            async () => {
              await tab.click({ inPage: '#book' });
              return tab.evaluate(() => document.querySelector('#book')?.textContent);
            },
            { timeout: 10_000 },
          )
          .not.toBe('Booked 0');
        await expect.poll(async () => (await widget(tab)).launchers, { timeout: 10_000 }).toBe(1);
        await openPanel(tab);
        await send(tab, `React ${version} document: can I book online?`);
        // No hydration error from either version: React 18 takes an element after <body> in <html> for a mismatch
        // of its own markup (#418, then #423 as it renders the document again) unless something there ends its look.
        expect(await pageReport(tab)).toEqual({ errors: [], lines: [], changes: WIDGET_GLOBALS });
      } finally {
        await tab.close();
      }
    },
  );
});
