// The tag pasted into practice pages built from real third-party packages, each installed from the npm registry at a
// pinned version (package.json's devDependencies) and served as published from the practice's own site
// (www.smile-dental.test), the relay on another site (chat.vendor-relay.test), in real Chromium: CSS frameworks and
// resets, scripts that patch built-ins, React hydration, a WordPress theme's markup, a Webflow export's markup, a site
// builder's code block, and Partytown. On each, as a patient meets it: the launcher shows on top at its size, a click opens the panel inside the
// viewport, the greeting shows, a message gets its reply; and the page's own feature still works, no global or
// built-in prototype of the page changed but PracticeChat, and nothing was logged or raised.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, ConsoleMessage, Page, Response } from 'playwright-core';
import { partytownSnippet } from '@builder.io/partytown/integration';
import { borrowChromium, giveBackChromium, serveHostPages, typeAndSend, type HostPageServer } from './harness.ts';
import { startProduct } from '../support/product.ts';
import {
  boxes,
  inside,
  PAGE_RECORDER,
  pastedTag,
  readPageReport,
  vendorRoutes,
  WIDGET_GLOBALS,
  type PageReport,
  type Route,
} from '../support/real-packages.ts';

let browser: Browser;
let product: Awaited<ReturnType<typeof startProduct>>;
let host: HostPageServer;

const relay = () => `http://chat.vendor-relay.test:${new URL(product.relayUrl).port}`;
const CONTENT = '<main><h1>Smile Dental</h1><p>Family dentistry since 1998.</p></main>';

/** A practice's page: the recorder first, then `head`; `body` (by default the practice's content), then the tag. */
const practicePage = ({ head = '', body = CONTENT, tag = pastedTag(relay()), htmlAttributes = '' }) =>
  `<!doctype html><html lang="en"${htmlAttributes}><head><meta charset="utf-8"><title>Smile Dental</title>${PAGE_RECORDER}${head}</head><body>${body}${tag}</body></html>`;

const stylesheet = (name: string) => `<link rel="stylesheet" href="/vendor/${name}">`;
const script = (name: string) => `<script src="/vendor/${name}"></script>`;

// Prototype 1.6.1's Array#toJSON and String#toJSON, as the library defines them: JSON.stringify([1, 2]) becomes the
// string "[1, 2]". Written here because no release of Prototype 1.6 is published on the npm registry (the package
// named prototype is a Node.js port without these).
const PROTOTYPE_TO_JSON = `<script>
Array.prototype.toJSON = function () {
  var results = [];
  for (var i = 0; i !== this.length; i++) { var value = JSON.stringify(this[i]); if (value !== undefined) results.push(value); }
  return '[' + results.join(', ') + ']';
};
String.prototype.toJSON = function () { return JSON.stringify(String(this)); };
</script>`;

// A server-rendered React root: exactly the markup test/support/react-app.js renders first.
const REACT_ROOT =
  '<main><h1>Smile Dental</h1><div id="root"><button type="button" id="book">Booked 0</button></div></main>';

// A site builder's code block (Squarespace's, a Wix embed): the block's HTML is set through innerHTML, where scripts do
// not run, then each script is re-created so that it does; the builder renders the block again when the visitor
// comes back to it, which runs the tag a second time.
const CODE_BLOCK = `<main><h1>Smile Dental</h1><div class="sqs-block code-block" data-block-type="23"><div class="sqs-block-content"></div></div></main>
<script>takePageShape();
function renderCodeBlock() {
  const content = document.querySelector('.sqs-block-content');
  content.innerHTML = '<p class="embed-note">Chat with us</p>' + ${JSON.stringify('<script async src="RELAY/loader.js" data-client-id="smile-dental"></scr')} + 'ipt>';
  for (const inert of content.querySelectorAll('script')) {
    const live = document.createElement('script');
    for (const { name, value } of inert.attributes) live.setAttribute(name, value);
    inert.replaceWith(live);
  }
}
renderCodeBlock();
addEventListener('load', () => setTimeout(renderCodeBlock, 100));
</script>`;

// A WordPress theme's page: its classes and block markup, WordPress's own jQuery 1.12.4 in no-conflict mode driving
// the theme's menu toggle, global styles, and the tag as a header-and-footer plugin prints it in wp_footer, with the
// version query WordPress appends to enqueued scripts.
const WORDPRESS = {
  htmlAttributes: ' class="no-js"',
  head: `<link rel="stylesheet" id="normalize-css" href="/vendor/normalize.css" media="all">
<style id="global-styles-inline-css">body { --wp--preset--font-size--medium: 20px; margin: 0; }
:where(.wp-site-blocks) > * { margin-block-start: 24px; margin-block-end: 0; }
.wp-block-button__link { display: inline-block; padding: 12px 24px; background: #32373c; color: #fff; }
.menu-toggle[aria-expanded="false"] + .main-navigation { display: none; }</style>
<script src="/vendor/jquery.js?ver=1.12.4" id="jquery-core-js"></script>
<script id="jquery-core-js-after">jQuery.noConflict();</script>`,
  body: `<div id="page" class="site"><a class="skip-link screen-reader-text" href="#content">Skip to content</a>
<header id="masthead" class="site-header"><p class="site-title"><a href="/" rel="home">Smile Dental</a></p>
<button class="menu-toggle" aria-controls="primary-menu" aria-expanded="false">Menu</button>
<nav id="site-navigation" class="main-navigation"><ul id="primary-menu" class="menu"><li class="menu-item"><a href="/services/">Services</a></li></ul></nav></header>
<div id="content" class="site-content wp-site-blocks"><main id="primary" class="site-main">
<article id="post-2" class="post-2 page type-page status-publish hentry"><div class="entry-content">
<div class="wp-block-group"><h2 class="wp-block-heading">Welcome</h2><p>Family dentistry since 1998.</p>
<div class="wp-block-buttons"><div class="wp-block-button"><a class="wp-block-button__link wp-element-button" href="/book/">Book</a></div></div></div>
</div></article></main></div></div>
<script id="theme-navigation-js">jQuery(function ($) { $('.menu-toggle').on('click', function () {
  $(this).attr('aria-expanded', $(this).attr('aria-expanded') === 'true' ? 'false' : 'true');
}); });</script>`,
  tag: pastedTag('RELAY', 'async id="practice-chat-js"').replace('RELAY/loader.js', 'RELAY/loader.js?ver=1.0'),
};

// A page as Webflow exports it: the site's and page's ids on <html>, Webflow's own inline script in <head> that adds
// w-mod-js to <html>'s classes, the w- classes of its navbar, container and button, jQuery 3 loaded at the end of
// <body> as Webflow loads it (its runtime, webflow.js, is not published on the npm registry: the navbar's toggle is
// written here with jQuery, as webflow.js does it, by the w--open class), and the tag pasted in the site's "Footer
// code", which Webflow prints as written after its scripts, before </body>.
const WEBFLOW = {
  htmlAttributes: ' data-wf-page="65a1f0c2e4b0a1b2c3d4e5f6" data-wf-site="65a1f0c2e4b0a1b2c3d4e5f0"',
  head: `<meta content="width=device-width, initial-scale=1" name="viewport">
<style>.w-nav { position: relative; background: #ddd; z-index: 1000; } .w-nav-menu { float: right; }
.w-nav-button { display: none; padding: 18px; cursor: pointer; } .w-container { max-width: 940px; margin: 0 auto; }
.w-button { display: inline-block; padding: 9px 15px; background: #3898ec; color: #fff; border: 0; text-decoration: none; }
@media (max-width: 991px) { .w-nav[data-collapse="medium"] .w-nav-menu { display: none; }
  .w-nav[data-collapse="medium"] .w-nav-button { display: block; } .w-nav[data-collapse="medium"] .w-nav-menu.w--open { display: block; } }</style>
<script type="text/javascript">!function(o,c){var n=c.documentElement,t=" w-mod-";n.className+=t+"js",("ontouchstart"in o||o.DocumentTouch&&c instanceof DocumentTouch)&&(n.className+=t+"touch")}(window,document);</script>`,
  body: `<div data-collapse="medium" data-animation="default" data-duration="400" role="banner" class="navbar w-nav">
<div class="w-container"><a href="/" class="brand w-nav-brand">Smile Dental</a>
<nav role="navigation" class="nav-menu w-nav-menu"><a href="/services" class="nav-link w-nav-link">Services</a></nav>
<div class="menu-button w-nav-button" aria-label="menu" role="button" tabindex="0" aria-expanded="false"><div class="w-icon-nav-menu">Menu</div></div></div></div>
<section class="hero w-container"><h1 class="heading">Smile Dental</h1><p class="paragraph">Family dentistry since 1998.</p>
<a href="/book" class="button w-button">Book</a></section>
<script src="/vendor/jquery-3.js?site=65a1f0c2e4b0a1b2c3d4e5f0" type="text/javascript"></script>
<script type="text/javascript">$(function () { $('.w-nav-button').on('click', function () {
  var open = !$(this).hasClass('w--open');
  $(this).toggleClass('w--open', open).attr('aria-expanded', String(open));
  $(this).closest('.w-nav').find('.w-nav-menu').toggleClass('w--open', open);
}); });</script>`,
};

interface Case {
  page: () => string;
  /** The page's own feature, checked once the widget has run; resolves to `feature`'s expected value. */
  feature: (page: Page) => Promise<unknown>;
  expected: unknown;
  /**
   * What the page's own library writes on its own when any script uses the page's APIs (zone.js keeps each event
   * target's listeners in properties of that target), which is not the widget changing the page.
   */
  libraryBookkeeping?: RegExp;
}

const computed = (selector: string, property: string) => (page: Page) =>
  page.evaluate(
    ([selector, property]) => getComputedStyle(document.querySelector(selector!)!).getPropertyValue(property!),
    [selector, property],
  );

const CASES: Record<string, Case> = {
  'Bootstrap 5 (bootstrap@5.3.9)': {
    page: () =>
      practicePage({
        head: stylesheet('bootstrap.css'),
        // Bootstrap's bottom navbar, fixed at its own z-index across the corner where the launcher sits.
        body: `<main class="container"><h1 class="display-4">Smile Dental</h1><a class="btn btn-primary" href="#book">Book</a></main>
<nav class="navbar fixed-bottom bg-body-tertiary" style="height: 120px"><div class="container-fluid"><a class="navbar-brand" href="#">Call 555-0100</a></div></nav>`,
      }),
    feature: computed('.btn-primary', 'background-color'),
    expected: 'rgb(13, 110, 253)',
  },
  "Tailwind's preflight (tailwindcss@4.3.5)": {
    page: () => practicePage({ head: stylesheet('preflight.css') }),
    // Preflight makes headings plain text: the size and margin of their parent.
    feature: (page) => Promise.all([computed('h1', 'font-size')(page), computed('h1', 'margin-top')(page)]),
    expected: ['16px', '0px'],
  },
  'normalize.css (normalize.css@8.0.1)': {
    page: () => practicePage({ head: stylesheet('normalize.css') }),
    feature: computed('h1', 'font-size'),
    expected: '32px',
  },
  '* { all: unset }': {
    page: () => practicePage({ head: '<style>* { all: unset }</style>' }),
    feature: computed('h1', 'display'),
    expected: 'inline',
  },
  'html { font-size: 62.5% }': {
    page: () => practicePage({ head: '<style>html { font-size: 62.5% } body { font-size: 1.6rem }</style>' }),
    feature: computed('html', 'font-size'),
    expected: '10px',
  },
  "Prototype 1.6's Array#toJSON (written here: not on the npm registry)": {
    page: () => practicePage({ head: PROTOTYPE_TO_JSON }),
    feature: (page) => page.evaluate(() => JSON.stringify({ list: [1, 'a'] })),
    expected: '{"list":"[1, \\"a\\"]"}',
  },
  'MooTools (mootools@1.5.2, its core)': {
    page: () => practicePage({ head: script('mootools.js') }),
    feature: (page) =>
      page.evaluate(() => {
        const mootools = window as unknown as { Class: new (spec: object) => new () => { greet(): string } };
        const Greeter = new mootools.Class({ greet: () => 'hello' });
        return [([1, 2] as unknown as { contains(x: number): boolean }).contains(2), new Greeter().greet()];
      }),
    expected: [true, 'hello'],
  },
  'zone.js (zone.js@0.16.3)': {
    page: () => practicePage({ head: script('zone.js') }),
    // A zone follows the page's timers and promises, as Angular's change detection needs.
    feature: (page) =>
      page.evaluate(
        () =>
          new Promise((resolve) => {
            const { Zone } = window as unknown as {
              Zone: { current: { name: string; fork(spec: object): { run(fn: () => void): void } } };
            };
            Zone.current
              .fork({ name: 'practice' })
              .run(() => setTimeout(() => Promise.resolve().then(() => resolve(Zone.current.name))));
          }),
      ),
    expected: 'practice',
    libraryBookkeeping: /^window\.__zone_symbol__\w+(true|false) added$/,
  },
  'core-js (core-js-bundle@3.50.0)': {
    page: () => practicePage({ head: script('core-js.js') }),
    feature: (page) =>
      page.evaluate(() => [
        typeof (window as unknown as Record<string, unknown>)['__core-js_shared__'],
        [3, 1, 2].toSorted().join(),
      ]),
    expected: ['object', '1,2,3'],
  },
  'jQuery 1.12 (jquery@1.12.4)': {
    page: () =>
      practicePage({
        head: script('jquery.js'),
        body: `${CONTENT}<button type="button" id="call">Call us</button>
<script>$('#call').on('click', function () { $(this).text('Calling'); });</script>`,
      }),
    feature: async (page) => {
      await page.locator('#call').click();
      return page.evaluate(() => [
        (window as unknown as { $: { fn: { jquery: string } } }).$.fn.jquery,
        document.querySelector('#call')!.textContent,
      ]);
    },
    expected: ['1.12.4', 'Calling'],
  },
  'React 18 hydration (react@18.3.1, react-dom@18.3.1)': {
    page: () => practicePage({ body: `${REACT_ROOT}${script('react-18-app.js')}` }),
    feature: async (page) => {
      await page.locator('#book').click();
      return page.locator('#book').innerText();
    },
    expected: 'Booked 1',
  },
  'React 19 hydration (react@19.2.9, react-dom@19.2.9)': {
    page: () => practicePage({ body: `${REACT_ROOT}${script('react-19-app.js')}` }),
    feature: async (page) => {
      await page.locator('#book').click();
      return page.locator('#book').innerText();
    },
    expected: 'Booked 1',
  },
  'a WordPress theme (markup, its jQuery 1.12.4 in no-conflict mode)': {
    page: () =>
      practicePage({
        htmlAttributes: WORDPRESS.htmlAttributes,
        head: WORDPRESS.head,
        body: WORDPRESS.body,
        tag: WORDPRESS.tag.replace('RELAY', relay()),
      }),
    feature: async (page) => {
      await page.locator('.menu-toggle').click();
      return page.locator('.menu-toggle').getAttribute('aria-expanded');
    },
    expected: 'true',
  },
  'a Webflow export (its markup and classes, jQuery 3 as Webflow loads it: jquery@3.5.1)': {
    page: () => practicePage({ htmlAttributes: WEBFLOW.htmlAttributes, head: WEBFLOW.head, body: WEBFLOW.body }),
    // The navbar collapses below 992px: the test's window is narrower while the feature is tried.
    feature: async (page) => {
      await page.setViewportSize({ width: 800, height: 800 });
      await page.locator('.w-nav-button').click();
      return page.evaluate(() => [
        (window as unknown as { jQuery: { fn: { jquery: string } } }).jQuery.fn.jquery,
        document.documentElement.className,
        document.querySelector('.w-nav-menu')!.classList.contains('w--open'),
        getComputedStyle(document.querySelector('.w-nav-menu')!).display,
      ]);
    },
    expected: ['3.5.1', ' w-mod-js', true, 'block'],
  },
  "a site builder's code block (Squarespace, Wix embed: set by innerHTML, scripts re-created, rendered twice)": {
    page: () => practicePage({ body: CODE_BLOCK.replace('RELAY', relay()), tag: '' }),
    feature: (page) =>
      page.evaluate(() => [
        document.querySelectorAll('.embed-note').length,
        document.querySelectorAll('script[src*="loader.js"]').length,
      ]),
    expected: [1, 1],
  },
};

beforeAll(async () => {
  const [launched, started, vendor] = await Promise.all([
    borrowChromium(),
    startProduct({ relayHost: 'chat.vendor-relay.test' }),
    vendorRoutes(),
  ]);
  [browser, product] = [launched, started];
  const pages: Record<string, Route> = {};
  for (const [index, { page }] of Object.values(CASES).entries()) pages[`/case-${index}`] = () => ({ body: page() });
  // A practice's site has an icon, which Chromium asks for with the first page it shows.
  const icon: Route = () => ({ body: '', headers: { 'Content-Type': 'image/x-icon' } });
  host = await serveHostPages({
    ...vendor,
    ...pages,
    '/favicon.ico': icon,
    // Partytown as its docs set it up: its snippet inline in <head>, the tag given type="text/partytown".
    '/partytown': () => ({
      body: practicePage({
        head: `<script>${partytownSnippet()}</script>`,
        tag: pastedTag(relay(), 'type="text/partytown"'),
      }),
    }),
  });
});
afterAll(async () => {
  await Promise.all([giveBackChromium(browser), product?.close(), host?.close()]);
});

/**
 * The cases' one tab. Each case is a fresh load of its own page in it; a tab of its own per case would start a renderer
 * process each time, which is none of what is tested (the pages are all on the practice's site). What a tab keeps from
 * one page to the next is its sessionStorage: the conversation's handle in the frame's (partitioned) storage, which
 * would resume the last case's conversation. leaveCase() empties it in every frame, or closes the tab where it cannot.
 */
let tab: Page | undefined;
const caseTab = async () => {
  tab ??= await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  return tab;
};
async function leaveCase(page: Page) {
  const emptied = await Promise.all(
    page.frames().map((frame) =>
      frame
        .evaluate(() => sessionStorage.clear())
        .then(
          () => true,
          () => false,
        ),
    ),
  );
  if (emptied.every(Boolean)) return;
  tab = undefined;
  await page.context().close();
}

describe('the tag on pages built from real packages, in Chromium', { timeout: 60_000 }, () => {
  it.each(Object.entries(CASES).map(([name, entry], index) => [name, index, entry] as const))(
    '%s: launcher on top, the panel in view with its greeting, a reply; the page works and is unchanged',
    async (_name, index, { feature, expected, libraryBookkeeping }) => {
      const page = await caseTab();
      const logged: string[] = [];
      const onConsole = (message: ConsoleMessage) => {
        if (message.type() === 'error' || message.type() === 'warning') logged.push(message.text());
      };
      const onPageError = (error: Error) => logged.push(error.message);
      const onResponse = (response: Response) => {
        if (response.status() >= 400) logged.push(`${response.status()} ${response.url()}`);
      };
      page.on('console', onConsole).on('pageerror', onPageError).on('response', onResponse);
      try {
        await page.goto(`http://www.smile-dental.test:${host.port}/case-${index}`);
        await page.locator('practice-chat-q7x button').waitFor({ timeout: 10_000 });
        const closed = await boxes(page);
        expect(closed.onTop).toBe(true);
        expect([closed.launcher?.width, closed.launcher?.height]).toEqual([56, 56]);
        expect(inside(closed.launcher!, closed.viewport)).toBe(true);

        await page.locator('practice-chat-q7x button').click();
        const frame = page.frameLocator('practice-chat-q7x iframe');
        await expect
          .poll(
            () =>
              frame
                .locator('.greeting')
                .innerText({ timeout: 1_000 })
                .catch(() => ''),
            { timeout: 15_000 },
          )
          .toMatch(/^Hi, I'm Sunny/);
        const open = await boxes(page);
        expect(open.panel?.width).toBe(380);
        expect(inside(open.panel!, open.viewport)).toBe(true);

        const chat = (await (await page.locator('practice-chat-q7x iframe').elementHandle())!.contentFrame())!;
        await typeAndSend(chat, 'Do you take new patients?');
        await expect.poll(() => chat.locator('.message.bot .text').count(), { timeout: 10_000 }).toBeGreaterThan(0);

        expect(await feature(page)).toEqual(expected);
        const report: PageReport = await page.evaluate(readPageReport);
        report.changes = report.changes.filter((change) => !libraryBookkeeping?.test(change));
        expect(report).toEqual({ errors: [], lines: [], changes: WIDGET_GLOBALS });
        expect(logged).toEqual([]);
        expect(await page.locator('practice-chat-q7x').count()).toBe(1);
      } finally {
        page.off('console', onConsole).off('pageerror', onPageError).off('response', onResponse);
        await leaveCase(page);
      }
    },
  );
});

describe('the tag handed to Partytown (@builder.io/partytown@0.10.3), in Chromium', () => {
  it("runs in Partytown's worker: one console line there says to use a plain <script>; the page is left as it was", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const workerLines: string[] = [];
    page.on('worker', (worker) => worker.on('console', (message) => workerLines.push(message.text())));
    try {
      // localhost: a secure context, where Partytown's service worker may run.
      await page.goto(`http://localhost:${host.port}/partytown`);
      await expect
        .poll(() => workerLines.filter((line) => line.startsWith('Practice chat')), { timeout: 15_000 })
        .toEqual(['Practice chat not shown: it runs in a worker: use a plain <script>']);
      expect(await page.locator('practice-chat-q7x').count()).toBe(0);
      const report = await page.evaluate(readPageReport);
      // Partytown's own notice, that its package has moved to another name on the registry.
      report.lines = report.lines.filter((line) => !line.startsWith('warn: @builder.io/partytown package has changed'));
      // Partytown's own globals (_pttab, _ptf), set on the main thread as its worker runs.
      report.changes = report.changes.filter((change) => !/^window\._pt\w+ added$/.test(change));
      expect(report).toEqual({ errors: [], lines: [], changes: [] });
    } finally {
      await context.close();
    }
  });
});
