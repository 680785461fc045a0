// `npm run bench:page`: what the widget costs a practice's page. A realistic page (text, images, a web-font-sized
// asset) is served on loopback as www.smile-dental.test; the relay runs as its own process under another site's
// name, chat.vendor-relay.test (Chromium maps *.test to 127.0.0.1). Headless Chromium loads the page with and
// without the script tag, interleaved, and the DevTools protocol reports script and task time, long tasks, layout
// shift, heap and bytes on the wire. Also: loader start → launcher painted, and click → panel interactive (first and
// second open). Run `npm run build` first: the relay serves dist/.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { cpus, totalmem } from 'node:os';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { launchBrowser, serveHostPages } from '../test/browser/harness.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const SETTLE_MS = 2500;

if (!existsSync(new URL('../dist/loader.js', import.meta.url))) {
  console.error('dist/loader.js is missing: run `npm run build` first.');
  process.exit(1);
}

/** A free high port for the relay, so PUBLIC_ORIGIN can name it before the relay starts. */
async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startRelayProcess(): Promise<{ origin: string; child: ChildProcess }> {
  const port = await freePort();
  const origin = `http://chat.vendor-relay.test:${port}`;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: new URL('..', import.meta.url),
    env: { ...process.env, NODE_ENV: 'development', PORT: String(port), SIMULATOR_PORT: '0', PUBLIC_ORIGIN: origin, HANDLE_SECRET: randomBytes(32).toString('base64url') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (output.includes('Relay listening on')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`relay exited (${code}):\n${output}`)));
    setTimeout(() => reject(new Error(`relay did not start:\n${output}`)), 30_000);
  });
  return { origin, child };
}

/** A practice's home page: headings and text, four images, a ~20 KB font, a little CSS. */
function practicePage(widget: string): string {
  const paragraph =
    '<p>Our friendly team offers check-ups, hygiene visits, fillings, crowns, implants and emergency appointments. ' +
    'New patients are welcome; we accept most insurance plans and offer evening hours on Tuesdays and Thursdays.</p>';
  const images = [1, 2, 3, 4].map((n) => `<img src="/img/${n}.svg" width="320" height="200" alt="Practice photo ${n}">`).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Smile Dental — family dentistry</title>
<style>@font-face{font-family:Brand;src:url(/font/brand.woff2) format("woff2");font-display:swap}
body{font:16px/1.5 Brand,system-ui,sans-serif;margin:0;color:#1f2937}header{background:#0f766e;color:#fff;padding:24px}
main{max-width:960px;margin:auto;padding:24px}.gallery{display:grid;grid-template-columns:repeat(2,1fr);gap:12px}</style></head>
<body><header><h1>Smile Dental</h1><nav><a href="#services">Services</a> · <a href="#team">Team</a> · <a href="#contact">Contact</a></nav></header>
<main><h2 id="services">Services</h2>${paragraph.repeat(6)}<div class="gallery">${images}</div>
<h2 id="team">Our team</h2>${paragraph.repeat(4)}<h2 id="contact">Contact</h2><p>12 High Street · 555-0100</p></main>${widget}</body></html>`;
}

function svgImage(n: number): string {
  const shapes = Array.from({ length: 60 }, (_, i) => `<circle cx="${(i * 37 * n) % 320}" cy="${(i * 53) % 200}" r="${4 + (i % 9)}" fill="hsl(${(i * 17 * n) % 360} 60% 55%)"/>`).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="200"><rect width="320" height="200" fill="#e5f3f1"/>${shapes}</svg>`;
}

interface Run {
  /** ScriptDuration once the launcher is up (with the widget) or the page has loaded (without), before the idle frame. */
  scriptAtLauncherMs: number;
  scriptMs: number;
  taskMs: number;
  heapKb: number;
  longTasks: number;
  tbtMs: number;
  cls: number;
  bytes: number;
  launcherPaintMs?: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

// Long tasks and layout shifts from the first moment, and when the launcher appeared (two frames after insertion).
const OBSERVE = () => {
  const w = window as unknown as { benchLong: number[]; benchCls: number; benchLauncher?: number };
  w.benchLong = [];
  w.benchCls = 0;
  new PerformanceObserver((list) => list.getEntries().forEach((entry) => w.benchLong.push(entry.duration))).observe({ type: 'longtask', buffered: true });
  new PerformanceObserver((list) =>
    list.getEntries().forEach((entry) => {
      const shift = entry as PerformanceEntry & { value: number; hadRecentInput: boolean };
      if (!shift.hadRecentInput) w.benchCls += shift.value;
    }),
  ).observe({ type: 'layout-shift', buffered: true });
  new MutationObserver((_records, observer) => {
    if (!document.querySelector('practice-chat')) return;
    observer.disconnect();
    requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        w.benchLauncher = performance.now();
        // Node waits for this line rather than polling the page, whose script would count as the page's.
        console.debug('bench:launcher');
      }),
    );
  }).observe(document, { childList: true, subtree: true });
};

async function measure(browser: Browser, url: string, withWidget: boolean, loaderUrl: string): Promise<Run> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.addInitScript(OBSERVE);
  const cdp = await context.newCDPSession(page);
  await Promise.all([cdp.send('Network.enable'), cdp.send('Performance.enable')]);
  // The page's own requests (the frame, a separate site, loads in its own renderer and is not counted here).
  let bytes = 0;
  cdp.on('Network.loadingFinished', (event) => (bytes += event.encodedDataLength));
  const launcherPainted = new Promise<void>((resolve) => page.on('console', (message) => message.text() === 'bench:launcher' && resolve()));
  await page.goto(url, { waitUntil: 'load' });
  if (withWidget) await launcherPainted;
  const early = Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  await page.waitForTimeout(SETTLE_MS);
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
    taskMs: metrics.TaskDuration! * 1000,
    heapKb: metrics.JSHeapUsedSize! / 1024,
    longTasks: page_.long.length,
    tbtMs: page_.long.reduce((sum, d) => sum + Math.max(0, d - 50), 0),
    cls: page_.cls,
    bytes,
    launcherPaintMs: page_.launcher !== undefined && page_.loaderEnd !== undefined ? page_.launcher - page_.loaderEnd : undefined,
  };
}

/** Click → the panel's composer is visible and enabled; then close, and open again. */
async function openTimes(browser: Browser, url: string): Promise<[number, number]> {
  const context = await browser.newContext();
  const page: Page = await context.newPage();
  await page.goto(url, { waitUntil: 'load' });
  const button = page.locator('practice-chat button');
  await button.waitFor();
  const composer = page.frameLocator('practice-chat iframe').locator('textarea');
  const times: number[] = [];
  for (let open = 0; open < 2; open++) {
    const start = performance.now();
    await button.click();
    await composer.waitFor({ state: 'visible' });
    await page.waitForFunction(() => true);
    times.push(performance.now() - start);
    await button.click();
    await page.locator('practice-chat iframe').waitFor({ state: 'hidden' });
  }
  await context.close();
  return times as [number, number];
}

/** One Chromium trace of the page with the widget: where does the renderer's main thread spend its time? */
async function traceBreakdown(browser: Browser, url: string): Promise<Array<[string, number]>> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const cdp: CDPSession = await context.newCDPSession(page);
  const events: Array<{ name: string; ph: string; dur?: number; tid: number; pid: number; args?: { data?: { url?: string; frame?: string } } }> = [];
  cdp.on('Tracing.dataCollected', (message) => events.push(...(message.value as unknown as typeof events)));
  await cdp.send('Tracing.start', { categories: 'devtools.timeline,v8.execute,disabled-by-default-devtools.timeline', transferMode: 'ReportEvents' });
  await page.goto(url, { waitUntil: 'load' });
  await page.locator('practice-chat button').waitFor();
  await page.waitForTimeout(SETTLE_MS);
  const done = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.end');
  await done;
  await context.close();
  // The page's main thread: the thread that ran the loader's script.
  const loaderRun = events.find((event) => event.name === 'EvaluateScript' && event.args?.data?.url?.includes('/loader.js'));
  const totals = new Map<string, number>();
  for (const event of events) {
    if (!loaderRun || event.pid !== loaderRun.pid || event.tid !== loaderRun.tid || event.ph !== 'X' || !event.dur) continue;
    const key = event.name === 'EvaluateScript' || event.name === 'v8.compile' ? `${event.name} ${event.args?.data?.url?.includes('/loader.js') ? 'loader.js' : 'page'}` : event.name;
    totals.set(key, (totals.get(key) ?? 0) + event.dur / 1000);
  }
  return [...totals].filter(([name]) => /EvaluateScript|v8\.compile|FunctionCall|FireIdleCallback|TimerFire|EventDispatch|Layout|UpdateLayoutTree|Paint|ParseHTML|ParseAuthorStyleSheet/.test(name)).sort((a, b) => b[1] - a[1]);
}

const { origin: relay, child } = await startRelayProcess();
const loaderUrl = `${relay}/loader.js`;
// Random base64 text: as incompressible as a real woff2, and plain ASCII so the page server sends it byte for byte.
const fontBytes = randomBytes(15 * 1024).toString('base64');
const host = await serveHostPages({
  '/': () => ({ body: practicePage(`<script async src="${loaderUrl}" data-client-id="smile-dental"></script>`) }),
  '/plain': () => ({ body: practicePage('') }),
  ...Object.fromEntries([1, 2, 3, 4].map((n) => [`/img/${n}.svg`, () => ({ body: svgImage(n), headers: { 'Content-Type': 'image/svg+xml' } })])),
  '/font/brand.woff2': () => ({ body: fontBytes, headers: { 'Content-Type': 'font/woff2' } }),
});
const page = (path: string) => `http://www.smile-dental.test:${host.port}${path}`;
const browser = await launchBrowser();

try {
  // Warm-up (compile caches, the relay's configuration cache), not counted.
  await measure(browser, page('/'), true, loaderUrl);
  await measure(browser, page('/plain'), false, loaderUrl);
  const withWidget: Run[] = [];
  const without: Run[] = [];
  for (let run = 0; run < RUNS; run++) {
    // Interleaved, alternating which goes first, so drift on a shared machine hits both alike.
    if (run % 2) {
      without.push(await measure(browser, page('/plain'), false, loaderUrl));
      withWidget.push(await measure(browser, page('/'), true, loaderUrl));
    } else {
      withWidget.push(await measure(browser, page('/'), true, loaderUrl));
      without.push(await measure(browser, page('/plain'), false, loaderUrl));
    }
  }
  const opens: Array<[number, number]> = [];
  for (let run = 0; run < RUNS; run++) opens.push(await openTimes(browser, page('/')));
  const trace = await traceBreakdown(browser, page('/'));

  const rows: Array<[string, keyof Run, (n: number) => string]> = [
    ['script time until the launcher is painted (ScriptDuration)', 'scriptAtLauncherMs', (n) => `${n.toFixed(1)} ms`],
    [`script time ${SETTLE_MS / 1000} s after load, idle frame included (ScriptDuration)`, 'scriptMs', (n) => `${n.toFixed(1)} ms`],
    ['task time (TaskDuration)', 'taskMs', (n) => `${n.toFixed(1)} ms`],
    ['long tasks', 'longTasks', (n) => String(n)],
    ['total blocking time', 'tbtMs', (n) => `${n.toFixed(0)} ms`],
    ['layout shift (CLS)', 'cls', (n) => n.toFixed(3)],
    ['JS heap used', 'heapKb', (n) => `${n.toFixed(0)} KB`],
    [`page's bytes on the wire (encodedDataLength), ${SETTLE_MS / 1000} s after load`, 'bytes', (n) => `${(n / 1024).toFixed(1)} KB`],
  ];
  console.log(`\nHost page: ${RUNS} runs each, interleaved; medians. ${cpus().length} × ${cpus()[0]?.model}, ${(totalmem() / 2 ** 30).toFixed(0)} GB, Node ${process.version}`);
  console.log('| | without widget | with widget | added (difference of medians) |\n| --- | --- | --- | --- |');
  for (const [label, key, format] of rows) {
    const a = median(without.map((run) => run[key] as number));
    const b = median(withWidget.map((run) => run[key] as number));
    console.log(`| ${label} | ${format(a)} | ${format(b)} | ${b - a >= 0 ? '+' : ''}${format(b - a)} |`);
  }
  const paint = withWidget.map((run) => run.launcherPaintMs).filter((n): n is number => n !== undefined);
  console.log(`\nloader received → launcher painted: median ${median(paint).toFixed(0)} ms (${paint.length} runs)`);
  console.log(`click → panel interactive: first open median ${median(opens.map((o) => o[0])).toFixed(0)} ms, second open ${median(opens.map((o) => o[1])).toFixed(0)} ms`);
  console.log(`max long tasks in any run with the widget: ${Math.max(...withWidget.map((run) => run.longTasks))}; max CLS: ${Math.max(...withWidget.map((run) => run.cls)).toFixed(3)}`);
  console.log('\nTrace, page main thread, with the widget (ms):');
  for (const [name, ms] of trace) console.log(`  ${name}: ${ms.toFixed(1)}`);
} finally {
  await browser.close();
  await host.close();
  child.kill('SIGTERM');
}
