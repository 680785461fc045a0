// `npm run bench:first-open` (also part of `npm run bench`): from a patient's first tap, click or key on the launcher
// to the panel's composer on screen with the caret in it, on a cold page (a new browser context: no cache, no open
// connection). The relay runs as bench:page runs it (its own process, another site, a TLS front), with a shaping
// proxy in front (bench/page/shaping-proxy.ts): every byte to and from the relay, the page's requests and the
// frame's alike, crosses a link of SHAPED's round trip and rate, or, unshaped, the same proxy without delay. The
// floor, in the same run and through the same link: the same page without the widget, whose button creates an empty
// cross-site frame from the relay's origin (its robots.txt) when tapped or clicked, timed until that frame is
// painted. Run `npm run build` first: the relay serves dist/. With BENCH_BASELINE_ROOT=<a built checkout>
// (`npm run build` run in it), that build's relay and loader, behind a shaped link of their own, are a third page in
// the same interleaved runs (every way but the floor's), so that before and after come from the same run.
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { cpus } from 'node:os';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../tools/chromium.ts';
import { serveHostPages } from '../tools/host-pages.ts';
import { practicePage } from './page/practice-site.ts';
import { openQuietPage } from './page/quiet-page.ts';
import { startRelayProcess } from './page/relay-process.ts';
import { type LinkShape, startShapingProxy, UNSHAPED } from './page/shaping-proxy.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
/** "Slow 4G" as the issue puts it: 150 ms round trip, 1.6 Mbit/s each way. */
const SHAPED: LinkShape = { oneWayMs: 75, bitsPerSecond: 1.6e6 };
/** How long the pointer rests on the launcher, or focus on it, before the click or the Enter. */
const INTENT_BEFORE_MS = 300;
/** After the launcher has appeared, before the patient reaches for it: the page has finished loading. */
const SETTLE_MS = 1000;
const OPEN_TIMEOUT_MS = 20_000;
const SECOND_OPEN = 'second open (click, frame loaded)';
const ANOTHER_PAGE = 'click on another page of the site (same browser)';

if (
  !existsSync(new URL('../dist/loader.js', import.meta.url)) ||
  !existsSync(new URL('../dist-server/server.js', import.meta.url))
) {
  console.error('dist/loader.js or dist-server/server.js is missing: run `npm run build` first.');
  process.exit(1);
}

/**
 * In every document of the page, the frames included: the host page notes its first pointerdown (a tap's or a
 * click's) or Enter; a frame says on the console when its composer, once focused, or the floor's empty document, once
 * loaded, has been painted (the next animation frame). Both as wall-clock time (timeOrigin + a page's own clock),
 * which the page's and the frame's processes share.
 */
// A string, not a function: tsx wraps a function's named consts in a helper the page does not have.
const MARKS = `(() => {
  const at = (timeStamp) => performance.timeOrigin + timeStamp;
  if (window === window.top) {
    const start = (event) => (window.benchStart ??= at(event.timeStamp));
    addEventListener('pointerdown', start, true);
    addEventListener('keydown', (event) => event.key === 'Enter' && start(event), true);
    return;
  }
  const painted = () => requestAnimationFrame(() => console.debug('bench:shown ' + at(performance.now())));
  if (location.pathname === '/robots.txt') addEventListener('load', painted);
  else document.addEventListener('focusin', (event) => event.target.localName === 'textarea' && painted());
})()`;

type Way = 'tap' | 'click' | 'hover, then click' | 'Tab, then Enter' | 'floor: tap' | 'floor: click';
/** `BENCH_WAYS=tap,click` times only those. */
const WAYS = (process.env.BENCH_WAYS?.split(',') as Way[] | undefined) ?? [
  'tap',
  'click',
  'hover, then click',
  'Tab, then Enter',
  'floor: tap',
  'floor: click',
];

/** The floor's page: the practice's page without the widget, and a button where the launcher would be. */
const floorPage = (relay: string) =>
  practicePage(
    '<button id="floor" style="position:fixed;bottom:20px;right:20px;width:56px;height:56px">Chat</button>' +
      `<script>floor.onclick=()=>{const f=document.createElement('iframe');f.src='${relay}/robots.txt';f.style.cssText='position:fixed;bottom:88px;right:20px';document.body.append(f)}</script>`,
  );

/** One cold open: the time from the first input to the composer (or the floor's frame) painted; and, for a click
 * on the widget, the second open after closing (the frame already loaded). */
async function openOnce(
  browser: Browser,
  url: (path: string) => string,
  way: Way,
  widgetPath = '/',
): Promise<[Timed, Timed?, Timed?]> {
  const touch = way.includes('tap');
  const { context, page } = await openQuietPage(browser, touch ? { hasTouch: true, isMobile: true } : {});
  try {
    await context.addInitScript(MARKS);
    const floor = way.startsWith('floor');
    await page.goto(url(floor ? '/floor' : widgetPath), { waitUntil: 'load' });
    const target = floor ? page.locator('#floor') : page.locator('practice-chat-q7x button');
    await target.waitFor({ timeout: OPEN_TIMEOUT_MS });
    await page.waitForTimeout(SETTLE_MS);
    const first = await timed(page, async () => {
      if (touch) await target.tap();
      else if (way === 'hover, then click') {
        await target.hover();
        await page.waitForTimeout(INTENT_BEFORE_MS);
        await target.click();
      } else if (way === 'Tab, then Enter') {
        // The last link of the page, then Tab: the launcher follows the page's content.
        await page.locator('a[href="#contact"]').focus();
        await page.keyboard.press('Tab');
        await page.waitForTimeout(INTENT_BEFORE_MS);
        await page.keyboard.press('Enter');
      } else await target.click();
    });
    if (way !== 'click') return [first];
    // Closed, then opened again: the open-later path, with the frame loaded.
    await target.click();
    await page.locator('practice-chat-q7x iframe').waitFor({ state: 'hidden' });
    await page.evaluate(() => delete (window as unknown as { benchStart?: number }).benchStart);
    const second = await timed(page, () => target.click());
    // Another page of the same site, in the same browser: a new frame, whatever the browser kept of the last one.
    await page.goto(url(`${widgetPath}?another-page`), { waitUntil: 'load' });
    await target.waitFor({ timeout: OPEN_TIMEOUT_MS });
    await page.waitForTimeout(SETTLE_MS);
    return [first, second, await timed(page, () => target.click())];
  } finally {
    await context.close();
  }
}

/** From the input to the composer shown, and the bytes the relay's link carried down meanwhile. */
interface Timed {
  ms: number;
  bytes: number;
}

async function timed(page: Page, act: () => Promise<void>): Promise<Timed> {
  const bytesBefore = bytesDown();
  const shown = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`nothing shown: ${page.url()}`)), OPEN_TIMEOUT_MS);
    page.on('console', (message) => {
      const [mark, at] = message.text().split(' ');
      if (mark !== 'bench:shown') return;
      clearTimeout(timer);
      resolve(Number(at));
    });
  });
  await act();
  const end = await shown;
  const bytes = bytesDown() - bytesBefore;
  const start = await page.evaluate(() => (window as unknown as { benchStart: number }).benchStart);
  return { ms: end - start, bytes };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** The relay of `root` (a built checkout) behind a shaping proxy of its own. */
async function startShapedRelay(root?: URL) {
  let shaper: Awaited<ReturnType<typeof startShapingProxy>> | undefined;
  const relay = await startRelayProcess(async (frontPort) => {
    shaper = await startShapingProxy(frontPort);
    return shaper.port;
  }, root);
  return { ...relay, shaper: shaper! };
}

const current = await startShapedRelay();
const baselineRoot = process.env.BENCH_BASELINE_ROOT;
const baseline = baselineRoot
  ? await startShapedRelay(pathToFileURL(`${baselineRoot.replace(/\/$/, '')}/`))
  : undefined;
const relay = current.origin;
const site = await serveHostPages({
  '/': practicePage(`<script async src="${relay}/loader.js" data-client-id="smile-dental"></script>`),
  '/floor': floorPage(relay),
  ...(baseline && {
    '/baseline': practicePage(
      `<script async src="${baseline.origin}/loader.js" data-client-id="smile-dental"></script>`,
    ),
  }),
});
const url = (path: string) => `http://www.smile-dental.test:${site.port}${path}`;
// The relays' certificates are trusted by their keys, not only their errors ignored: Chromium keeps nothing in its
// HTTP cache from a connection with a certificate error, and an open on another page of the site is about its cache.
const browser = await launchBrowser([
  `--ignore-certificate-errors-spki-list=${[current, baseline].flatMap((relayProcess) => relayProcess?.front.spki ?? []).join(',')}`,
]);
/** Bytes down both relays' links so far. */
const bytesDown = () => current.shaper.bytesDown() + (baseline?.shaper.bytesDown() ?? 0);
const shapeAll = (shape: LinkShape) => {
  current.shaper.shape(shape);
  baseline?.shaper.shape(shape);
};
/** The pages each way is timed on: this build's, and the baseline's (not for the floor, which has no widget). */
const pagesFor = (way: Way): Array<[string, string]> =>
  baseline && !way.startsWith('floor')
    ? [
        ['', '/'],
        ['baseline: ', '/baseline'],
      ]
    : [['', '/']];

try {
  shapeAll(UNSHAPED);
  // Warm-up (the relays' configuration caches and compressed pages, compile caches), not counted.
  for (const way of WAYS) for (const [, path] of pagesFor(way)) await openOnce(browser, url, way, path);
  const results = new Map<string, number[]>();
  const bytes = new Map<string, number[]>();
  const add = (key: string, measured: Timed | undefined) => {
    if (!measured) return;
    results.set(key, [...(results.get(key) ?? []), measured.ms]);
    bytes.set(key, [...(bytes.get(key) ?? []), measured.bytes]);
  };
  for (let run = 0; run < RUNS; run++)
    for (const [name, shape] of [
      ['shaped', SHAPED],
      ['unshaped', UNSHAPED],
    ] as const) {
      shapeAll(shape);
      for (const way of WAYS) {
        const pages = pagesFor(way);
        // Interleaved, each build first in turn, so drift on a shared machine hits them alike.
        for (let k = 0; k < pages.length; k++) {
          const [label, path] = pages[(run + k) % pages.length]!;
          const [first, second, anotherPage] = await openOnce(browser, url, way, path);
          add(`${name}|${label}${way}`, first);
          add(`${name}|${label}${SECOND_OPEN}`, second);
          add(`${name}|${label}${ANOTHER_PAGE}`, anotherPage);
        }
      }
    }
  console.log(
    `\nFirst open, cold: ${RUNS} runs each, interleaved; medians (ms). ${cpus().length} × ${cpus()[0]?.model}, Node ${process.version}. ` +
      `Shaped: ${SHAPED.oneWayMs * 2} ms round trip, ${SHAPED.bitsPerSecond / 1e6} Mbit/s each way (relay only).${baseline ? ` Baseline: ${baselineRoot}.` : ''}`,
  );
  console.log(
    '| from the input to the composer shown and focused | shaped | round trips | unshaped | unshaped ÷ floor | KB down (shaped) |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
  const rtt = SHAPED.oneWayMs * 2;
  const rows = [...WAYS, SECOND_OPEN, ANOTHER_PAGE];
  const labels = baseline ? ['', 'baseline: '] : [''];
  for (const label of labels)
    for (const row of rows) {
      if (label && row.startsWith('floor')) continue;
      const way = label + row;
      const shaped = median(results.get(`shaped|${way}`) ?? []);
      const unshaped = median(results.get(`unshaped|${way}`) ?? []);
      const floorOf = row.includes('tap') ? 'floor: tap' : 'floor: click';
      const floor = median(results.get(`unshaped|${floorOf}`) ?? []);
      console.log(
        `| ${way} | ${shaped.toFixed(0)} | ${(shaped / rtt).toFixed(1)} | ${unshaped.toFixed(0)} | ${row.startsWith('floor') ? '' : `${(unshaped / floor).toFixed(2)}×`} | ${(median(bytes.get(`shaped|${way}`) ?? []) / 1024).toFixed(1)} |`,
      );
    }
  console.log('\nper run (ms):');
  for (const [key, values] of results) console.log(`  ${key}: ${values.map((v) => v.toFixed(0)).join(' ')}`);
} finally {
  await browser.close();
  await site.close();
  for (const relayProcess of [current, baseline]) {
    relayProcess?.shaper.close();
    relayProcess?.child.kill('SIGTERM');
    relayProcess?.front.close();
  }
}
