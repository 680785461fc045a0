// `npm run bench:page`: what the widget costs a practice's page. A realistic page (text, images, a web-font-sized
// asset) is served on loopback as www.smile-dental.test; the relay runs as its own process under another site's
// name, https://chat.vendor-relay.test behind a TLS front (Chromium maps *.test to 127.0.0.1). Headless Chromium
// loads the page with and without the script tag, interleaved, each time in a new window once that window has
// settled (bench/page/quiet-page.ts), and the DevTools protocol reports script time (ScriptDuration, wall time of
// scripts' first evaluation only), the main thread's CPU time (ThreadTime: everything the thread did, the promise
// callbacks, style, layout and paint after the launcher's insertion included), task time, long tasks, layout
// shift, heap and bytes on the wire, 3 s after load. Also: loader start → launcher painted, and click → panel interactive (first
// and second open). Run `npm run build` first: the relay serves dist/. With BENCH_BASELINE_ROOT=<a built checkout>
// (`npm run build` run in it), that build's loader, served by its own relay, is a third page in the same interleaved
// runs, so that two loaders are compared under the same load of the machine.
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { cpus, totalmem } from 'node:os';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../tools/chromium.ts';
import { OBSERVE } from './page/observe.ts';
import { servePracticeSite } from './page/practice-site.ts';
import { openQuietPage, unsettledWindows } from './page/quiet-page.ts';
import { startRelayProcess } from './page/relay-process.ts';
import { traceScriptCpu } from './page/script-cpu-trace.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
/** A mouse user's pointer rests on the launcher about this long before the click lands. */
const HOVER_BEFORE_CLICK_MS = 150;
/** How long after load each page is left before its totals are read. */
const AFTER_LOAD_MS = 3000;
const PAINT_TIMEOUT_MS = 30_000;

if (
  !existsSync(new URL('../dist/loader.js', import.meta.url)) ||
  !existsSync(new URL('../dist-server/server.js', import.meta.url))
) {
  console.error('dist/loader.js or dist-server/server.js is missing: run `npm run build` first.');
  process.exit(1);
}

interface Run {
  /** ScriptDuration two frames after the launcher's insertion (with the widget) or after load (without). */
  scriptAtLauncherMs: number;
  scriptMs: number;
  /** The page's main thread's CPU time (ThreadTime), from the renderer's start until AFTER_LOAD_MS after load. */
  threadMs: number;
  /** The same until the launcher is painted (with the widget) or until after load (without). */
  threadAtLauncherMs: number;
  taskMs: number;
  heapKb: number;
  longTasks: number;
  tbtMs: number;
  cls: number;
  bytes: number;
  widgetRequests: Array<{ path: string; body: number; total: number }>;
  launcherPaintMs?: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

async function measure(browser: Browser, url: string, loaderUrl: string): Promise<Run> {
  const { context, page } = await openQuietPage(browser);
  await page.addInitScript(OBSERVE);
  const cdp = await context.newCDPSession(page);
  await Promise.all([cdp.send('Network.enable'), cdp.send('Performance.enable')]);
  // The page's own requests (the frame, a separate site, loads in its own renderer and is not counted here).
  let bytes = 0;
  cdp.on('Network.loadingFinished', (event) => (bytes += event.encodedDataLength));
  // The widget's own requests (to the relay), by path: body bytes as they crossed the wire, and with their headers.
  const relayRequests = new Map<string, { path: string; body: number; total: number }>();
  cdp.on('Network.requestWillBeSent', (event) => {
    const address = new URL(event.request.url);
    if (address.host === new URL(loaderUrl).host)
      relayRequests.set(event.requestId, { path: address.pathname, body: 0, total: 0 });
  });
  // When the answer's headers arrive, the bytes received so far are the headers; the rest, at the end, is the body.
  const headerBytes = new Map<string, number>();
  cdp.on('Network.responseReceived', (event) => headerBytes.set(event.requestId, event.response.encodedDataLength));
  cdp.on('Network.loadingFinished', (event) => {
    const request = relayRequests.get(event.requestId);
    if (!request) return;
    request.total = event.encodedDataLength;
    request.body = event.encodedDataLength - (headerBytes.get(event.requestId) ?? 0);
  });
  const painted = new Promise<void>((resolve) =>
    page.on('console', (message) => message.text() === 'bench:painted' && resolve()),
  );
  await page.goto(url, { waitUntil: 'load' });
  // A page whose launcher never comes (the relay not answering, dist/ rebuilt under it) stops the bench with a reason.
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    painted,
    new Promise((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${url}: nothing painted within ${PAINT_TIMEOUT_MS} ms of load`)),
        PAINT_TIMEOUT_MS,
      );
    }),
  ]).finally(() => clearTimeout(timer));
  const early = Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  await page.waitForTimeout(AFTER_LOAD_MS);
  const metrics = Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  const page_ = await page.evaluate((loader) => {
    const w = window as unknown as { benchLong: number[]; benchCls: number; benchLauncher?: number };
    const entry = performance.getEntriesByName(loader)[0] as PerformanceResourceTiming | undefined;
    return { long: w.benchLong, cls: w.benchCls, launcher: w.benchLauncher, loaderEnd: entry?.responseEnd };
  }, loaderUrl);
  await context.close();
  return {
    scriptAtLauncherMs: early.ScriptDuration! * 1000,
    scriptMs: metrics.ScriptDuration! * 1000,
    threadMs: metrics.ThreadTime! * 1000,
    threadAtLauncherMs: early.ThreadTime! * 1000,
    taskMs: metrics.TaskDuration! * 1000,
    heapKb: metrics.JSHeapUsedSize! / 1024,
    longTasks: page_.long.length,
    tbtMs: page_.long.reduce((sum, d) => sum + Math.max(0, d - 50), 0),
    cls: page_.cls,
    bytes,
    widgetRequests: [...relayRequests.values()],
    launcherPaintMs:
      page_.launcher !== undefined && page_.loaderEnd !== undefined ? page_.launcher - page_.loaderEnd : undefined,
  };
}

/**
 * Click → the panel's composer is visible; then close, and open again. The frame is created on intent (the first
 * hover, focus or touch of the launcher), so the first open depends on how long before the click that intent came:
 * `hoverFirstMs` null clicks at once (Playwright moves the pointer and clicks in the same moment, as a script's open()
 * would), a number rests the pointer on the launcher that long first, as a mouse user's hand does.
 */
async function openTimes(browser: Browser, url: string, hoverFirstMs: number | null): Promise<[number, number]> {
  const { context, page } = await openQuietPage(browser);
  await page.goto(url, { waitUntil: 'load' });
  const button = page.locator('practice-chat-q7x button');
  await button.waitFor();
  const composer = page.frameLocator('practice-chat-q7x iframe').locator('textarea');
  const times: number[] = [];
  for (let open = 0; open < 2; open++) {
    if (open === 0 && hoverFirstMs !== null) {
      await button.hover();
      await page.waitForTimeout(hoverFirstMs);
    }
    const start = performance.now();
    await button.click();
    await composer.waitFor({ state: 'visible' });
    await page.waitForFunction(() => true);
    times.push(performance.now() - start);
    await button.click();
    await page.locator('practice-chat-q7x iframe').waitFor({ state: 'hidden' });
  }
  await context.close();
  return times as [number, number];
}

const { origin: relay, child, front } = await startRelayProcess();
const loaderUrl = `${relay}/loader.js`;
const baselineRoot = process.env.BENCH_BASELINE_ROOT;
const baseline = baselineRoot
  ? await startRelayProcess(undefined, pathToFileURL(`${baselineRoot.replace(/\/$/, '')}/`))
  : undefined;
const baselineLoaderUrl = baseline && `${baseline.origin}/loader.js`;
const site = await servePracticeSite(loaderUrl, baselineLoaderUrl);
const siteUrl = site.url;
const browser = await launchBrowser();

try {
  // Warm-up (compile caches, the relay's configuration cache), not counted.
  await measure(browser, siteUrl('/'), loaderUrl);
  await measure(browser, siteUrl('/plain'), loaderUrl);
  if (baselineLoaderUrl) await measure(browser, siteUrl('/baseline'), baselineLoaderUrl);
  const withWidget: Run[] = [];
  const without: Run[] = [];
  const withBaseline: Run[] = [];
  const pages: Array<[Run[], string, string]> = [
    [withWidget, '/', loaderUrl],
    [without, '/plain', loaderUrl],
    ...(baselineLoaderUrl ? [[withBaseline, '/baseline', baselineLoaderUrl] as [Run[], string, string]] : []),
  ];
  for (let run = 0; run < RUNS; run++) {
    // Interleaved, each page first in turn, so drift on a shared machine hits them alike.
    for (let k = 0; k < pages.length; k++) {
      const [runs, path, loader] = pages[(run + k) % pages.length]!;
      runs.push(await measure(browser, siteUrl(path), loader));
    }
  }
  const opens: Array<[number, number]> = [];
  const hoveredOpens: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    opens.push(await openTimes(browser, siteUrl('/'), null));
    hoveredOpens.push((await openTimes(browser, siteUrl('/'), HOVER_BEFORE_CLICK_MS))[0]);
  }
  const traced: Array<Map<string, number>> = [];
  const tracedWithout: Array<Map<string, number>> = [];
  const tracedBaseline: Array<Map<string, number>> = [];
  for (let run = 0; run < RUNS; run++) {
    traced.push(await traceScriptCpu(browser, siteUrl('/'), AFTER_LOAD_MS));
    tracedWithout.push(await traceScriptCpu(browser, siteUrl('/plain'), AFTER_LOAD_MS));
    if (baselineLoaderUrl) tracedBaseline.push(await traceScriptCpu(browser, siteUrl('/baseline'), AFTER_LOAD_MS));
  }

  const rows: Array<[string, keyof Run, (n: number) => string]> = [
    ['script time until the launcher is painted (ScriptDuration)', 'scriptAtLauncherMs', (n) => `${n.toFixed(1)} ms`],
    [`script time ${AFTER_LOAD_MS / 1000} s after load (ScriptDuration)`, 'scriptMs', (n) => `${n.toFixed(1)} ms`],
    ['main-thread CPU until the launcher is painted (ThreadTime)', 'threadAtLauncherMs', (n) => `${n.toFixed(1)} ms`],
    [`main-thread CPU ${AFTER_LOAD_MS / 1000} s after load (ThreadTime)`, 'threadMs', (n) => `${n.toFixed(1)} ms`],
    ['task time (TaskDuration)', 'taskMs', (n) => `${n.toFixed(1)} ms`],
    ['long tasks', 'longTasks', (n) => String(n)],
    ['total blocking time', 'tbtMs', (n) => `${n.toFixed(0)} ms`],
    ['layout shift (CLS)', 'cls', (n) => n.toFixed(3)],
    ['JS heap used', 'heapKb', (n) => `${n.toFixed(0)} KB`],
    [
      `page's bytes on the wire (encodedDataLength), ${AFTER_LOAD_MS / 1000} s after load`,
      'bytes',
      (n) => `${(n / 1024).toFixed(1)} KB`,
    ],
  ];
  console.log(
    `\nHost page: ${RUNS} runs each, interleaved; medians. ${cpus().length} × ${cpus()[0]?.model}, ${(totalmem() / 2 ** 30).toFixed(0)} GB, Node ${process.version}`,
  );
  const added = (n: number, format: (n: number) => string) => `${n >= 0 ? '+' : ''}${format(n)}`;
  console.log(
    baselineLoaderUrl
      ? `| | without widget | baseline (${baselineRoot}) | with widget | added, baseline | added |\n| --- | --- | --- | --- | --- | --- |`
      : '| | without widget | with widget | added (difference of medians) |\n| --- | --- | --- | --- |',
  );
  for (const [label, key, format] of rows) {
    const a = median(without.map((run) => run[key] as number));
    const b = median(withWidget.map((run) => run[key] as number));
    if (!baselineLoaderUrl) {
      console.log(`| ${label} | ${format(a)} | ${format(b)} | ${added(b - a, format)} |`);
      continue;
    }
    const c = median(withBaseline.map((run) => run[key] as number));
    console.log(
      `| ${label} | ${format(a)} | ${format(c)} | ${format(b)} | ${added(c - a, format)} | ${added(b - a, format)} |`,
    );
  }
  const requestPaths = [...new Set(withWidget.flatMap((run) => run.widgetRequests.map((request) => request.path)))];
  const sizeOf = (path: string, key: 'body' | 'total') =>
    median(
      withWidget.map((run) => run.widgetRequests.filter((r) => r.path === path).reduce((sum, r) => sum + r[key], 0)),
    );
  console.log(
    `\nThe widget's requests at page load (bytes on the wire, medians): ${requestPaths.map((path) => `${path} ${sizeOf(path, 'body')} body, ${sizeOf(path, 'total')} with headers`).join('; ')}`,
  );
  // Each run's figure, so a reader can see the spread behind a median on a shared machine.
  console.log(
    `\nscript time per run (ms), with: ${withWidget.map((run) => run.scriptMs.toFixed(1)).join(' ')}; without: ${without.map((run) => run.scriptMs.toFixed(1)).join(' ')}`,
  );
  console.log(
    `main-thread CPU per run (ms), with: ${withWidget.map((run) => run.threadMs.toFixed(1)).join(' ')}; without: ${without.map((run) => run.threadMs.toFixed(1)).join(' ')}`,
  );
  if (baselineLoaderUrl)
    console.log(
      `baseline per run (ms), script time: ${withBaseline.map((run) => run.scriptMs.toFixed(1)).join(' ')}; main-thread CPU: ${withBaseline.map((run) => run.threadMs.toFixed(1)).join(' ')}`,
    );
  const paint = withWidget.map((run) => run.launcherPaintMs).filter((n): n is number => n !== undefined);
  console.log(`\nloader received → launcher painted: median ${median(paint).toFixed(0)} ms (${paint.length} runs)`);
  console.log(
    `click → panel interactive: first open median ${median(opens.map((o) => o[0])).toFixed(0)} ms clicked at once, ` +
      `${median(hoveredOpens).toFixed(0)} ms after the pointer rested ${HOVER_BEFORE_CLICK_MS} ms on the launcher; second open ${median(opens.map((o) => o[1])).toFixed(0)} ms`,
  );
  if (unsettledWindows.count)
    console.log(`\n${unsettledWindows.count} windows were still busy when their page was loaded (timed anyway).`);
  console.log(
    `max long tasks in any run with the widget: ${Math.max(...withWidget.map((run) => run.longTasks))}; max CLS: ${Math.max(...withWidget.map((run) => run.cls)).toFixed(3)}`,
  );
  const cpu = (runs: Array<Map<string, number>>, key: string) => median(runs.map((run) => run.get(key) ?? 0));
  console.log(`\nScript CPU on the page's main thread (trace thread time, ${RUNS} traced runs each, medians):`);
  console.log(
    `  total: without ${cpu(tracedWithout, 'total').toFixed(1)} ms, with ${cpu(traced, 'total').toFixed(1)} ms, added ${(cpu(traced, 'total') - cpu(tracedWithout, 'total')).toFixed(1)} ms`,
  );
  const keys = [...new Set(traced.flatMap((run) => [...run.keys()]))].filter((key) => key !== 'total');
  if (baselineLoaderUrl)
    console.log(
      `  baseline total: ${cpu(tracedBaseline, 'total').toFixed(1)} ms, added ${(cpu(tracedBaseline, 'total') - cpu(tracedWithout, 'total')).toFixed(1)} ms`,
    );
  for (const key of keys.sort((a, b) => cpu(traced, b) - cpu(traced, a)))
    console.log(
      `  ${key}: with ${cpu(traced, key).toFixed(2)} ms, without ${cpu(tracedWithout, key).toFixed(2)} ms${baselineLoaderUrl ? `, baseline ${cpu(tracedBaseline, key).toFixed(2)} ms` : ''}`,
    );
} finally {
  await browser.close();
  await site.close();
  child.kill('SIGTERM');
  front.close();
  baseline?.child.kill('SIGTERM');
  baseline?.front.close();
}
