// The tag on the pages practices really have, in real Chromium: a page that streams its head before its body, a page
// that enforces Trusted Types, a nonce with 'strict-dynamic', cross-origin isolated pages, a zoomed <html>, a
// transformed and zoomed <body>, a page that defines <practice-chat> for itself, a consent banner at the highest
// z-index, a document replaced whole, and a tag run in a plain web worker. Pages built from real third-party
// packages are in real-packages.test.ts and real-navigations.test.ts. The pages are on their own sites
// (www.smile-dental.test, or localhost where a secure context is needed), the relay on another (127.0.0.1). The
// launcher is found by what it is (the page's one button with aria-expanded, through its open shadow root), not by
// its element's name, so that these tests read the same against any loader.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { borrowChromium, giveBackChromium, openPage, serveHostPages, type HostPageServer } from './harness.ts';
import { startProduct } from '../support/product.ts';

let browser: Browser;
let product: Awaited<ReturnType<typeof startProduct>>;
let host: HostPageServer;
let streaming: Server;
const PREFIX = 'Practice chat';
/** How long the streamed page keeps its body back, after its head (with the tag) has been sent. */
const BODY_DELAY_MS = 2_500;

const tag = (extra = '') =>
  `<script async src="${product.relayUrl}/loader.js" data-client-id="smile-dental"${extra}></script>`;
const page = (body: string, head = '', doctype = '<!doctype html>') =>
  `${doctype}<html lang="en"><head><meta charset="utf-8"><title>Smile Dental</title>${head}</head><body><main><h1>Smile Dental</h1><a href="#top">Top</a></main>${body}</body></html>`;

/** Records every CSP violation the page reports, from before any of its scripts run. */
const recordViolations = () => {
  const seen: string[] = [];
  (window as unknown as { violations: string[] }).violations = seen;
  document.addEventListener('securitypolicyviolation', (event) =>
    seen.push(`${event.violatedDirective} ${event.blockedURI}`),
  );
};

beforeAll(async () => {
  [browser, product] = await Promise.all([borrowChromium(), startProduct()]);
  const relay = product.relayUrl;
  const isolated = (embedder: string) => ({
    body: page(tag()),
    headers: { 'Cross-Origin-Embedder-Policy': embedder, 'Cross-Origin-Opener-Policy': 'same-origin' },
  });
  host = await serveHostPages({
    '/': () => ({ body: page(tag()) }),
    '/trusted-types': () => ({
      body: page(tag()),
      headers: { 'Content-Security-Policy': "require-trusted-types-for 'script'; trusted-types 'none'" },
    }),
    '/strict-dynamic': () => ({
      body: page(tag(' nonce="r4nd0m"')),
      headers: {
        'Content-Security-Policy': `script-src 'nonce-r4nd0m' 'strict-dynamic'; style-src 'none'; connect-src ${relay}; frame-src ${relay}; img-src ${relay}; base-uri 'none'; object-src 'none'`,
      },
    }),
    '/require-corp': () => isolated('require-corp'),
    '/credentialless': () => isolated('credentialless'),
    '/zoom': () => ({ body: page(tag(), '<style>html { zoom: 1.5 }</style>') }),
    '/transformed': () => ({
      body: page(
        `<div style="height: 3000px"></div>${tag()}`,
        '<style>body { transform: translateX(0); filter: saturate(1); zoom: 2; margin: 40px }</style>',
      ),
    }),
    '/own-element': () => ({
      body: page(
        `<practice-chat></practice-chat>${tag()}`,
        // The page's own <practice-chat>, defined before the tag runs, with a shadow root of its own.
        `<script>customElements.define('practice-chat', class extends HTMLElement {
           constructor() { super(); this.attachShadow({ mode: 'open' }).textContent = 'Our own chat'; }
         });</script>`,
      ),
    }),
    '/consent': () => ({
      body: page(
        `<div class="consent"><p>We use cookies.</p><button id="accept" type="button" onclick="this.textContent='Accepted'">Accept</button></div>${tag()}`,
        `<style>.consent { position: fixed; inset: auto 0 0 0; z-index: 2147483647; background: #fff; padding: 0; height: 120px; }
         #accept { position: absolute; right: 0; bottom: 0; width: 200px; height: 100px; }</style>`,
      ),
    }),
    '/worker': () => ({
      body: page(
        `<script>new Worker(URL.createObjectURL(new Blob(['importScripts(${JSON.stringify(`${relay}/loader.js`)})'], { type: 'text/javascript' })));</script>`,
      ),
    }),
  });
  // A page that sends its head, with the tag in it, then keeps its body back, as a server that flushes early does.
  streaming = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    response.write(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Smile Dental</title>${tag()}</head>\n`,
    );
    setTimeout(
      () => response.end('<body><main><h1>Smile Dental</h1><a href="#top">Top</a></main></body></html>'),
      BODY_DELAY_MS,
    );
  });
  await new Promise<void>((resolve) => streaming.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await Promise.all([
    giveBackChromium(browser),
    product?.close(),
    host?.close(),
    new Promise((resolve) => (streaming ? streaming.close(resolve) : resolve(undefined))),
  ]);
});

const url = (hostName: string, path = '/', port = host.port) => `http://${hostName}:${port}${path}`;
const launcher = (p: Page) => p.locator('button[aria-expanded]');
const panel = (p: Page) => p.locator('iframe[sandbox]');
const ourLines = (lines: string[]) => lines.filter((line) => line.startsWith(PREFIX));

async function visit(address: string, before?: () => void) {
  const opened = await openPage(browser);
  if (before) await opened.page.addInitScript(before);
  await opened.page.goto(address);
  return opened;
}

/** Opens the panel with a click and waits for the greeting in the frame. */
async function openPanel(p: Page) {
  await launcher(p).click();
  await expect.poll(() => panel(p).isVisible(), { timeout: 10_000 }).toBe(true);
  const frame = (await (await panel(p).elementHandle())!.contentFrame())!;
  await expect
    .poll(
      () =>
        frame
          .locator('.greeting')
          .innerText()
          .catch(() => ''),
      { timeout: 10_000 },
    )
    .toMatch(/^Hi, I'm Sunny/);
  return frame;
}

const rectOf = (p: Page, which: 'button' | 'iframe') =>
  (which === 'button' ? launcher(p) : panel(p)).evaluate((element) => {
    const { x, y, width, height } = element.getBoundingClientRect();
    return { x, y, width, height, viewport: { width: innerWidth, height: innerHeight } };
  });

describe('the tag wherever it is pasted', () => {
  it('in <head> of a page whose body comes later: the launcher waits for the body, then follows it', async () => {
    const port = (streaming.address() as AddressInfo).port;
    const { context, page: p, consoleLines } = await visit(url('www.smile-dental.test', '/', port));
    try {
      await launcher(p).waitFor({ timeout: BODY_DELAY_MS + 10_000 });
      // After the page's content: the body's last element precedes the launcher's host, for keyboard users too.
      expect(
        await launcher(p).evaluate((button) => {
          const element = (button.getRootNode() as ShadowRoot).host;
          return {
            parent: element.parentElement?.tagName,
            afterBody: !!(document.body.compareDocumentPosition(element) & Node.DOCUMENT_POSITION_FOLLOWING),
          };
        }),
      ).toEqual({ parent: 'HTML', afterBody: true });
      await openPanel(p);
      expect(ourLines(consoleLines)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('on a page that defines its own <practice-chat> element first', async () => {
    const { context, page: p, consoleLines } = await visit(url('www.smile-dental.test', '/own-element'));
    try {
      await openPanel(p);
      expect(await p.evaluate(() => document.querySelector('practice-chat')?.shadowRoot?.textContent)).toBe(
        'Our own chat',
      );
      expect(ourLines(consoleLines)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('run in a plain web worker (Partytown itself runs in real-packages.test.ts): one console line that says what to change', async () => {
    const { context, page: p } = await visit(url('www.smile-dental.test', '/worker'));
    try {
      const worker = p.workers()[0] ?? (await p.waitForEvent('worker'));
      const lines: string[] = [];
      worker.on('console', (message) => lines.push(message.text()));
      await expect
        .poll(() => lines, { timeout: 10_000 })
        .toEqual(['Practice chat not shown: it runs in a worker: use a plain <script>']);
      expect(await launcher(p).count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});

describe('strict pages', () => {
  it('enforces Trusted Types, allowing no policy at all: a click opens the panel and nothing is reported', async () => {
    const {
      context,
      page: p,
      consoleLines,
    } = await visit(url('www.smile-dental.test', '/trusted-types'), recordViolations);
    try {
      await launcher(p).hover();
      await openPanel(p);
      expect(await p.evaluate(() => (window as unknown as { violations: string[] }).violations)).toEqual([]);
      expect(consoleLines.filter((line) => /Trusted|Practice chat/.test(line))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("allows scripts by a nonce with 'strict-dynamic', and no styles at all: the panel opens", async () => {
    const {
      context,
      page: p,
      consoleLines,
    } = await visit(url('www.smile-dental.test', '/strict-dynamic'), recordViolations);
    try {
      await openPanel(p);
      expect(await p.evaluate(() => (window as unknown as { violations: string[] }).violations)).toEqual([]);
      expect(ourLines(consoleLines)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it.each(['require-corp', 'credentialless'])(
    'is cross-origin isolated (Cross-Origin-Embedder-Policy: %s): the panel shows the greeting',
    async (embedder) => {
      // localhost: a secure context, which isolation needs, on a site of its own (the relay is on 127.0.0.1).
      const { context, page: p, consoleLines } = await visit(url('localhost', `/${embedder}`));
      try {
        expect(await p.evaluate(() => crossOriginIsolated)).toBe(true);
        await openPanel(p);
        expect(ourLines(consoleLines)).toEqual([]);
      } finally {
        await context.close();
      }
    },
  );
});

describe("whatever the page's CSS does", () => {
  it('zooms <html> by 1.5: the launcher and the open panel keep their size, inside the viewport', async () => {
    const { context, page: p } = await visit(url('www.smile-dental.test', '/zoom'));
    try {
      await openPanel(p);
      const button = await rectOf(p, 'button');
      expect([button.width, button.height]).toEqual([56, 56]);
      const frame = await rectOf(p, 'iframe');
      expect(frame.width).toBe(380);
      expect(frame.y).toBeGreaterThanOrEqual(0);
      expect(frame.x).toBeGreaterThanOrEqual(0);
      expect(frame.y + frame.height).toBeLessThanOrEqual(frame.viewport.height);
      expect(frame.x + frame.width).toBeLessThanOrEqual(frame.viewport.width);
    } finally {
      await context.close();
    }
  });

  it("reads <html>'s zoom before the launcher is in the page and again when it opens, never after its own insertion", async () => {
    // Each read of an element's effective zoom, and whether the launcher was in the page then: a read with the
    // launcher in the page makes the browser compute the launcher's styles at once, in the page's time, where the
    // next frame would have computed them anyway; only the patient's open may pay for that.
    const recordZoomReads = () => {
      const reads: boolean[] = [];
      (window as unknown as { zoomReads: boolean[] }).zoomReads = reads;
      const own = Object.getOwnPropertyDescriptor(Element.prototype, 'currentCSSZoom')!;
      Object.defineProperty(Element.prototype, 'currentCSSZoom', {
        configurable: true,
        get() {
          reads.push(
            [...document.documentElement.children].some((e) => e.shadowRoot?.querySelector('button[aria-expanded]')),
          );
          return own.get!.call(this);
        },
      });
    };
    const { context, page: p } = await visit(url('www.smile-dental.test', '/zoom'), recordZoomReads);
    const reads = () => p.evaluate(() => (window as unknown as { zoomReads: boolean[] }).zoomReads);
    try {
      await launcher(p).waitFor();
      // Two frames and a timer later: anything the launcher's insertion set off has run.
      await p.evaluate(
        () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done)))),
      );
      expect(await reads()).toEqual([false]);
      await openPanel(p);
      expect((await reads()).slice(1)).toContain(true);
    } finally {
      await context.close();
    }
  });

  it('transforms, filters and zooms <body>, scrolled: the launcher stays in the corner of the viewport at its size', async () => {
    const { context, page: p } = await visit(url('www.smile-dental.test', '/transformed'));
    try {
      await launcher(p).waitFor();
      await p.mouse.wheel(0, 1500);
      await expect.poll(() => p.evaluate(() => scrollY)).toBeGreaterThan(0);
      const button = await rectOf(p, 'button');
      expect(button).toEqual({
        x: button.viewport.width - 20 - 56,
        y: button.viewport.height - 20 - 56,
        width: 56,
        height: 56,
        viewport: button.viewport,
      });
      await openPanel(p);
      const frame = await rectOf(p, 'iframe');
      expect(frame.y + frame.height).toBeLessThanOrEqual(frame.viewport.height);
    } finally {
      await context.close();
    }
  });

  it('shows a consent banner at the highest z-index: the banner stays above the launcher, its button clickable', async () => {
    const { context, page: p } = await visit(url('www.smile-dental.test', '/consent'));
    try {
      await launcher(p).waitFor();
      // Wherever they overlap, the point is the banner's: here the launcher's own centre.
      const button = await rectOf(p, 'button');
      const centre = { x: button.x + button.width / 2, y: button.y + button.height / 2 };
      expect(await p.evaluate(({ x, y }) => document.elementFromPoint(x, y)?.id, centre)).toBe('accept');
      await p.mouse.click(centre.x, centre.y);
      expect(await p.locator('#accept').innerText()).toBe('Accepted');
    } finally {
      await context.close();
    }
  });
});

describe("the page's life", () => {
  it('replaces its whole document element (a re-render of the document): the launcher comes back', async () => {
    const { context, page: p, consoleLines } = await visit(url('www.smile-dental.test'));
    try {
      await launcher(p).waitFor();
      await p.evaluate(() => {
        const next = document.createElement('html');
        next.append(document.createElement('head'), document.createElement('body'));
        next.querySelector('body')!.textContent = 'Rendered again';
        document.replaceChild(next, document.documentElement);
      });
      await expect.poll(() => launcher(p).count()).toBe(1);
      await openPanel(p);
      expect(ourLines(consoleLines)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
