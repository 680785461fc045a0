// `npx tsx bench/first-open-trace.ts` (after `npm run build`): where a cold first open's time goes, unshaped. The same
// page, relay and link as bench:first-open; one warm-up open, then TRACE_RUNS cold opens (a tap, or a click with
// TRACE_WAY=click), each traced in every process of the browser (the page's renderer and the frame's alike), and the
// steps from the first pointerdown to the composer painted listed with their times. Every step is read from the one
// trace clock that all processes share: user-timing marks set by an init script in the page and in the frame, and the
// renderers' own events (the frame's navigation, its parsing, its script's compile and run, the renderers' frames).
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../tools/chromium.ts';
import { serveHostPages } from '../tools/host-pages.ts';
import { practicePage } from './page/practice-site.ts';
import { openQuietPage } from './page/quiet-page.ts';
import { startRelayProcess } from './page/relay-process.ts';
import { startShapingProxy } from './page/shaping-proxy.ts';
import type { TraceEvent } from './page/script-cpu-trace.ts';

const RUNS = Number(process.env.TRACE_RUNS ?? 3);
const WAY = process.env.TRACE_WAY === 'click' ? 'click' : 'tap';
const SETTLE_MS = 1000;

// Marks in the page and in every frame, set before their own scripts run and so seen before the widget's listeners:
// the page's pointerdown and click, a message heard in each document (its type), the frame's composer focused, and
// the next animation frame after it (the composer painted).
const MARKS = `(() => {
  const mark = (name) => performance.mark(name);
  const top = window === window.top;
  const side = top ? 'page' : 'frame';
  if (top) {
    addEventListener('pointerdown', () => mark('page: pointerdown'), true);
    addEventListener('click', () => mark('page: click'), true);
  }
  addEventListener('message', (event) => {
    const type = event.data && event.data.message && event.data.message.type;
    mark(side + ': message ' + (type || JSON.stringify(event.data).slice(0, 40)));
  }, true);
  if (!top) {
    document.addEventListener('focusin', (event) => {
      if (event.target.localName !== 'textarea') return;
      mark('frame: composer focused');
      requestAnimationFrame(() => { mark('frame: rAF after focus'); console.debug('trace:shown'); });
    });
    addEventListener('DOMContentLoaded', () => mark('frame: DOMContentLoaded'));
  }
})()`;

async function tracedOpen(browser: Browser, url: string): Promise<TraceEvent[]> {
  const touch = WAY === 'tap';
  const { context, page } = await openQuietPage(browser, touch ? { hasTouch: true, isMobile: true } : {});
  try {
    await context.addInitScript(MARKS);
    await page.goto(url, { waitUntil: 'load' });
    const target = page.locator('practice-chat-q7x button');
    await target.waitFor();
    await page.waitForTimeout(SETTLE_MS);
    const cdp = await browser.newBrowserCDPSession();
    const events: TraceEvent[] = [];
    cdp.on('Tracing.dataCollected', (message) => events.push(...(message.value as unknown as TraceEvent[])));
    await cdp.send('Tracing.start', {
      categories: [
        'devtools.timeline',
        'blink.user_timing',
        'v8.execute',
        'loading',
        'navigation',
        ...(process.env.TRACE_DETAIL
          ? ['disabled-by-default-devtools.timeline', 'disabled-by-default-v8.cpu_profiler']
          : []),
      ].join(','),
      transferMode: 'ReportEvents',
    });
    const shown = new Promise<void>((resolve) =>
      page.on('console', (message) => message.text() === 'trace:shown' && resolve()),
    );
    if (touch) await target.tap();
    else await target.click();
    await shown;
    await page.waitForTimeout(200);
    const done = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
    await cdp.send('Tracing.end');
    await done;
    await cdp.detach();
    return events;
  } finally {
    await context.close();
  }
}

/** The steps of one open, each with its start after the pointerdown and its length (ms, wall time). */
function steps(events: TraceEvent[]): Map<string, number> {
  const marks = events.filter((event) => event.cat?.includes('blink.user_timing') && event.ph !== 'e');
  const mark = (name: string) => marks.find((event) => event.name === name);
  const pointerdown = mark('page: pointerdown')!;
  const framePid = marks.find((event) => event.name.startsWith('frame:'))!.pid;
  const start = pointerdown.ts;
  const after = (name: string, pid: number, url = '', from = start) =>
    events.find(
      (event) =>
        event.name === name &&
        event.pid === pid &&
        event.ts >= from &&
        (!url || String(event.args?.data?.url ?? '').includes(url)),
    );
  const commit = after('ResourceSendRequest', framePid, '/frame?')!;
  const parse = after('ParseHTML', framePid, '', commit.ts)!;
  const compile = after('v8.compileModule', framePid, '', commit.ts)!;
  const evaluate = after('v8.evaluateModule', framePid, '', commit.ts)!;
  const ready = marks.find((event) => event.name.startsWith('page: message') && event.name.includes('"ready"'))!;
  const open = marks.find((event) => event.name.startsWith('frame: message') && event.name.includes('"open"'))!;
  const render = after('FunctionCall', framePid, '', open.ts)!;
  const style = after('UpdateLayoutTree', framePid, '', render.ts);
  const layout = after('Layout', framePid, '', render.ts);
  const focused = mark('frame: composer focused')!;
  const painted = mark('frame: rAF after focus')!;
  // A response event names its request by id only: the frame's code is the response to the request for its file
  // (that request's event may come before the pointerdown, when the request is queued early).
  const codeRequest = after('ResourceSendRequest', pointerdown.pid, 'loader-frame', 0);
  const code = events.find(
    (event) =>
      event.name === 'ResourceReceiveResponse' &&
      codeRequest !== undefined &&
      event.args?.data?.requestId === codeRequest.args?.data?.requestId,
  );
  const ms = (from: number, to: number) => (to - from) / 1000;
  const inRender = (event?: TraceEvent) =>
    event && event.ts < render.ts + (render.dur ?? 0) ? (event.dur ?? 0) / 1000 : 0;
  return new Map([
    ['page: click after the pointerdown', ms(start, mark('page: click')!.ts)],
    ["page: the frame's code (loader-frame.js) answered", code ? ms(start, code.ts) : Number.NaN],
    ["frame: navigation committed (the frame's response, a new renderer)", ms(start, commit.ts)],
    ['frame: committed → parsing starts', ms(commit.ts, parse.ts)],
    ['frame: parsing the page (HTML, its JSON blocks)', (parse.dur ?? 0) / 1000],
    ["frame: compiling the panel's module", (compile.dur ?? 0) / 1000],
    ["frame: running the panel's module (to `ready`)", (evaluate.dur ?? 0) / 1000],
    ['`ready` crossing to the page (module end → page hears it)', ms(evaluate.ts + (evaluate.dur ?? 0), ready.ts)],
    ['page hears `ready` → frame hears `open` (flush chain, crossing)', ms(ready.ts, open.ts)],
    ["frame: the panel's first render, to the composer focused", ms(open.ts, focused.ts)],
    ['  of which style', inRender(style)],
    ['  of which layout', inRender(layout)],
    ['frame: focused → next animation frame (painted)', ms(focused.ts, painted.ts)],
    ['total: pointerdown → composer painted', ms(start, painted.ts)],
  ]);
}

let shaper: Awaited<ReturnType<typeof startShapingProxy>> | undefined;
const relay = await startRelayProcess(
  async (frontPort) => {
    shaper = await startShapingProxy(frontPort);
    return shaper.port;
  },
  process.env.TRACE_ROOT ? pathToFileURL(`${process.env.TRACE_ROOT.replace(/\/$/, '')}/`) : undefined,
);
const site = await serveHostPages({
  '/': practicePage(`<script async src="${relay.origin}/loader.js" data-client-id="smile-dental"></script>`),
});
const browser = await launchBrowser([`--ignore-certificate-errors-spki-list=${relay.front.spki}`]);
const url = `http://www.smile-dental.test:${site.port}/`;
try {
  await tracedOpen(browser, url);
  const runs: Array<Map<string, number>> = [];
  for (let run = 0; run < RUNS; run++) {
    const events = await tracedOpen(browser, url);
    if (process.env.TRACE_DUMP) writeFileSync(`${process.env.TRACE_DUMP}-${run + 1}.json`, JSON.stringify(events));
    runs.push(steps(events));
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[values.length >> 1]!;
  console.log(`${WAY}, unshaped, traced: ${RUNS} cold opens; median, then each run (ms)`);
  for (const name of runs[0]!.keys()) {
    const values = runs.map((run) => run.get(name)!);
    console.log(`| ${name} | ${median([...values]).toFixed(1)} | ${values.map((v) => v.toFixed(1)).join(' ')} |`);
  }
} finally {
  await browser.close();
  await site.close();
  shaper?.close();
  relay.child.kill('SIGTERM');
  relay.front.close();
}
