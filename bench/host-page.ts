// `npm run bench:page`: what the widget costs a practice's page. A realistic page (text, images, a web-font-sized
// asset) is served on loopback as www.smile-dental.test; the relay runs as its own process under another site's
// name, https://chat.vendor-relay.test behind a TLS front (Chromium maps *.test to 127.0.0.1). Headless Chromium loads
// the page with and without the script tag, interleaved, each time in a new window once that window has settled
// (tools/quiet-page.ts), and the DevTools protocol reports script and task time, long tasks, layout shift, heap and
// bytes on the wire. Also: loader start → launcher painted, and click → panel interactive (first and
// second open). Run `npm run build` first: the relay serves dist/.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import type { Browser, CDPSession } from 'playwright-core';
import { launchBrowser } from '../tools/chromium.ts';
import { serveHostPages } from '../tools/host-pages.ts';
import { freePort } from '../tools/free-port.ts';
import { openQuietPage } from '../tools/quiet-page.ts';
import { startSimulatorServer } from '../src/simulator/server.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const SETTLE_MS = 2500;
/** A mouse user's pointer rests on the launcher about this long before the click lands. */
const HOVER_BEFORE_CLICK_MS = 150;

if (
  !existsSync(new URL('../dist/loader.js', import.meta.url)) ||
  !existsSync(new URL('../dist-server/server.js', import.meta.url))
) {
  console.error('dist/loader.js or dist-server/server.js is missing: run `npm run build` first.');
  process.exit(1);
}

/**
 * A TLS front for the relay, as a deployed relay has (a load balancer or proxy ends TLS and passes plain HTTP on):
 * Chrome asks for brotli only over HTTPS, so without it the bench would count the gzip bytes no visitor receives.
 * A self-signed certificate made with openssl for this run; the browser contexts are told to accept it.
 */
async function startTlsFront(): Promise<{ port: number; forwardTo(port: number): void; close(): void }> {
  const directory = mkdtempSync(join(tmpdir(), 'bench-tls-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=chat.vendor-relay.test',
      '-addext',
      'subjectAltName=DNS:chat.vendor-relay.test',
      '-keyout',
      join(directory, 'key.pem'),
      '-out',
      join(directory, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  let target = 0;
  const server = createTlsServer(
    { key: readFileSync(join(directory, 'key.pem')), cert: readFileSync(join(directory, 'cert.pem')) },
    (socket) => {
      const upstream = connect(target, '127.0.0.1');
      socket.pipe(upstream).pipe(socket);
      const end = () => (socket.destroy(), upstream.destroy());
      socket.on('error', end);
      upstream.on('error', end);
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  rmSync(directory, { recursive: true });
  return {
    port: (server.address() as { port: number }).port,
    forwardTo: (port) => (target = port),
    close: () => server.close(),
  };
}

async function startRelayProcess(): Promise<{ origin: string; child: ChildProcess; front: { close(): void } }> {
  const port = await freePort();
  const front = await startTlsFront();
  front.forwardTo(port);
  const origin = `https://chat.vendor-relay.test:${front.port}`;
  // The built relay, as production runs it (npm run serve): a relay under tsx would take CPU from the browser on this
  // shared machine at the very moment the loader runs.
  // The built relay embeds no simulator: it gets one on its own port, in this process, as it would get the service.
  const simulator = await startSimulatorServer({ port: 0 });
  const child = spawn(process.execPath, ['dist-server/server.js'], {
    cwd: new URL('..', import.meta.url),
    env: {
      ...process.env,
      NODE_ENV: 'development',
      PORT: String(port),
      PUBLIC_ORIGIN: origin,
      HANDLE_SECRET: randomBytes(32).toString('base64url'),
      UPSTREAM_URL: simulator.url,
      UPSTREAM_USERNAME: simulator.simulator.seed.username,
      UPSTREAM_PASSWORD: simulator.simulator.seed.password,
    },
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
  child.once('exit', () => void simulator.close());
  return { origin, child, front };
}

/** A practice's home page: headings and text, four images, a ~20 KB font, a little CSS. */
function practicePage(widget: string): string {
  const paragraph =
    '<p>Our friendly team offers check-ups, hygiene visits, fillings, crowns, implants and emergency appointments. ' +
    'New patients are welcome; we accept most insurance plans and offer evening hours on Tuesdays and Thursdays.</p>';
  const images = [1, 2, 3, 4]
    .map((n) => `<img src="/img/${n}.svg" width="320" height="200" alt="Practice photo ${n}">`)
    .join('');
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
  const shapes = Array.from(
    { length: 60 },
    (_, i) =>
      `<circle cx="${(i * 37 * n) % 320}" cy="${(i * 53) % 200}" r="${4 + (i % 9)}" fill="hsl(${(i * 17 * n) % 360} 60% 55%)"/>`,
  ).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="200"><rect width="320" height="200" fill="#e5f3f1"/>${shapes}</svg>`;
}

interface Run {
  /** ScriptDuration two frames after the launcher's insertion (with the widget) or after load (without). */
  scriptAtLauncherMs: number;
  scriptMs: number;
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

// Long tasks and layout shifts from the first moment, and when the launcher appeared (two frames after insertion).
const OBSERVE = () => {
  const w = window as unknown as {
    benchLong: number[];
    benchCls: number;
    benchLauncher?: number;
    benchPainted(): void;
  };
  w.benchLong = [];
  w.benchCls = 0;
  new PerformanceObserver((list) =>
    list.getEntries().forEach((entry) => {
      w.benchLong.push(entry.duration);
    }),
  ).observe({ type: 'longtask', buffered: true });
  new PerformanceObserver((list) =>
    list.getEntries().forEach((entry) => {
      const shift = entry as PerformanceEntry & { value: number; hadRecentInput: boolean };
      if (!shift.hadRecentInput) w.benchCls += shift.value;
    }),
  ).observe({ type: 'layout-shift', buffered: true });
  // Two frames after the launcher's insertion, or after load on the page without the widget: both pages run these
  // same callbacks, so the bench's own script is not counted as the widget's. (A property, not a const: tsx would
  // wrap a named const in a helper this page does not have.)
  w.benchPainted = () =>
    requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        w.benchLauncher = performance.now();
        // Node waits for this line rather than polling the page, whose script would count as the page's.
        console.debug('bench:painted');
      }),
    );
  addEventListener('load', () => document.querySelector('script[data-client-id]') || w.benchPainted());
  new MutationObserver((_records, observer) => {
    if (!document.querySelector('practice-chat')) return;
    observer.disconnect();
    w.benchPainted();
  }).observe(document, { childList: true, subtree: true });
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
  await painted;
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
  const button = page.locator('practice-chat button');
  await button.waitFor();
  const composer = page.frameLocator('practice-chat iframe').locator('textarea');
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
    await page.locator('practice-chat iframe').waitFor({ state: 'hidden' });
  }
  await context.close();
  return times as [number, number];
}

type TraceEvent = {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  tdur?: number;
  tid: number;
  pid: number;
  args?: { data?: { url?: string } };
};

/** Where script runs on the page's main thread: each entry point once (what runs inside one is not counted again). */
const SCRIPT_ENTRY_POINTS = new Set([
  'EvaluateScript',
  'FunctionCall',
  'RunMicrotasks',
  'TimerFire',
  'EventDispatch',
  'FireAnimationFrame',
  'FireIdleCallback',
  'V8.Execute',
]);

/**
 * One traced load of the page: the main thread's script time as CPU time (the trace's thread time), by entry point,
 * from navigation until 2.5 s after load. Unlike ScriptDuration, which is wall time and counts the first evaluation
 * of a script but not the promise callbacks after it, this counts everything the page's scripts made the main thread
 * do, and not the moments the operating system gave the core to another process (this machine has two cores for
 * Chromium, the relay and the bench).
 */
async function traceScriptCpu(browser: Browser, url: string): Promise<Map<string, number>> {
  const { context, page } = await openQuietPage(browser);
  await page.addInitScript(OBSERVE);
  const cdp: CDPSession = await context.newCDPSession(page);
  const events: TraceEvent[] = [];
  cdp.on('Tracing.dataCollected', (message) => events.push(...(message.value as unknown as TraceEvent[])));
  await cdp.send('Tracing.start', {
    categories: 'devtools.timeline,v8.execute,disabled-by-default-devtools.timeline',
    transferMode: 'ReportEvents',
  });
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForTimeout(SETTLE_MS);
  const done = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.end');
  await done;
  await context.close();
  // The page's main thread: the renderer thread that parsed the page's HTML.
  const parse = events.find((event) => event.name === 'ParseHTML');
  const totals = new Map<string, number>();
  let coveredUntil = -Infinity;
  const onMain = events
    .filter(
      (event) =>
        parse &&
        event.pid === parse.pid &&
        event.tid === parse.tid &&
        event.ph === 'X' &&
        SCRIPT_ENTRY_POINTS.has(event.name),
    )
    .sort((a, b) => a.ts - b.ts);
  for (const event of onMain) {
    if (event.ts < coveredUntil) continue;
    coveredUntil = event.ts + (event.dur ?? 0);
    const key =
      event.name === 'EvaluateScript'
        ? `EvaluateScript ${event.args?.data?.url?.includes('/loader.js') ? 'loader.js' : 'page'}`
        : event.name;
    totals.set(key, (totals.get(key) ?? 0) + (event.tdur ?? 0) / 1000);
  }
  totals.set(
    'total',
    [...totals.values()].reduce((sum, ms) => sum + ms, 0),
  );
  return totals;
}

const { origin: relay, child, front } = await startRelayProcess();
const loaderUrl = `${relay}/loader.js`;
// Random base64 text: as incompressible as a real woff2, and plain ASCII so the page server sends it byte for byte.
const fontBytes = randomBytes(15 * 1024).toString('base64');
const host = await serveHostPages({
  '/': () => ({ body: practicePage(`<script async src="${loaderUrl}" data-client-id="smile-dental"></script>`) }),
  '/plain': () => ({ body: practicePage('') }),
  ...Object.fromEntries(
    [1, 2, 3, 4].map((n) => [
      `/img/${n}.svg`,
      () => ({ body: svgImage(n), headers: { 'Content-Type': 'image/svg+xml' } }),
    ]),
  ),
  '/font/brand.woff2': () => ({ body: fontBytes, headers: { 'Content-Type': 'font/woff2' } }),
});
const page = (path: string) => `http://www.smile-dental.test:${host.port}${path}`;
const browser = await launchBrowser();

try {
  // Warm-up (compile caches, the relay's configuration cache), not counted.
  await measure(browser, page('/'), loaderUrl);
  await measure(browser, page('/plain'), loaderUrl);
  const withWidget: Run[] = [];
  const without: Run[] = [];
  for (let run = 0; run < RUNS; run++) {
    // Interleaved, alternating which goes first, so drift on a shared machine hits both alike.
    if (run % 2) {
      without.push(await measure(browser, page('/plain'), loaderUrl));
      withWidget.push(await measure(browser, page('/'), loaderUrl));
    } else {
      withWidget.push(await measure(browser, page('/'), loaderUrl));
      without.push(await measure(browser, page('/plain'), loaderUrl));
    }
  }
  const opens: Array<[number, number]> = [];
  const hoveredOpens: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    opens.push(await openTimes(browser, page('/'), null));
    hoveredOpens.push((await openTimes(browser, page('/'), HOVER_BEFORE_CLICK_MS))[0]);
  }
  const traced: Array<Map<string, number>> = [];
  const tracedWithout: Array<Map<string, number>> = [];
  for (let run = 0; run < RUNS; run++) {
    traced.push(await traceScriptCpu(browser, page('/')));
    tracedWithout.push(await traceScriptCpu(browser, page('/plain')));
  }

  const rows: Array<[string, keyof Run, (n: number) => string]> = [
    ['script time until the launcher is painted (ScriptDuration)', 'scriptAtLauncherMs', (n) => `${n.toFixed(1)} ms`],
    [`script time ${SETTLE_MS / 1000} s after load (ScriptDuration)`, 'scriptMs', (n) => `${n.toFixed(1)} ms`],
    ['task time (TaskDuration)', 'taskMs', (n) => `${n.toFixed(1)} ms`],
    ['long tasks', 'longTasks', (n) => String(n)],
    ['total blocking time', 'tbtMs', (n) => `${n.toFixed(0)} ms`],
    ['layout shift (CLS)', 'cls', (n) => n.toFixed(3)],
    ['JS heap used', 'heapKb', (n) => `${n.toFixed(0)} KB`],
    [
      `page's bytes on the wire (encodedDataLength), ${SETTLE_MS / 1000} s after load`,
      'bytes',
      (n) => `${(n / 1024).toFixed(1)} KB`,
    ],
  ];
  console.log(
    `\nHost page: ${RUNS} runs each, interleaved; medians. ${cpus().length} × ${cpus()[0]?.model}, ${(totalmem() / 2 ** 30).toFixed(0)} GB, Node ${process.version}`,
  );
  console.log('| | without widget | with widget | added (difference of medians) |\n| --- | --- | --- | --- |');
  for (const [label, key, format] of rows) {
    const a = median(without.map((run) => run[key] as number));
    const b = median(withWidget.map((run) => run[key] as number));
    console.log(`| ${label} | ${format(a)} | ${format(b)} | ${b - a >= 0 ? '+' : ''}${format(b - a)} |`);
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
  const paint = withWidget.map((run) => run.launcherPaintMs).filter((n): n is number => n !== undefined);
  console.log(`\nloader received → launcher painted: median ${median(paint).toFixed(0)} ms (${paint.length} runs)`);
  console.log(
    `click → panel interactive: first open median ${median(opens.map((o) => o[0])).toFixed(0)} ms clicked at once, ` +
      `${median(hoveredOpens).toFixed(0)} ms after the pointer rested ${HOVER_BEFORE_CLICK_MS} ms on the launcher; second open ${median(opens.map((o) => o[1])).toFixed(0)} ms`,
  );
  console.log(
    `max long tasks in any run with the widget: ${Math.max(...withWidget.map((run) => run.longTasks))}; max CLS: ${Math.max(...withWidget.map((run) => run.cls)).toFixed(3)}`,
  );
  const cpu = (runs: Array<Map<string, number>>, key: string) => median(runs.map((run) => run.get(key) ?? 0));
  console.log(`\nScript CPU on the page's main thread (trace thread time, ${RUNS} traced runs each, medians):`);
  console.log(
    `  total: without ${cpu(tracedWithout, 'total').toFixed(1)} ms, with ${cpu(traced, 'total').toFixed(1)} ms, added ${(cpu(traced, 'total') - cpu(tracedWithout, 'total')).toFixed(1)} ms`,
  );
  const keys = [...new Set(traced.flatMap((run) => [...run.keys()]))].filter((key) => key !== 'total');
  for (const key of keys.sort((a, b) => cpu(traced, b) - cpu(traced, a)))
    console.log(`  ${key}: with ${cpu(traced, key).toFixed(2)} ms, without ${cpu(tracedWithout, key).toFixed(2)} ms`);
} finally {
  await browser.close();
  await host.close();
  child.kill('SIGTERM');
  front.close();
}
