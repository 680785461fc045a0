// bench:page's traced loads: the script CPU of the page's main thread, by entry point.
import type { Browser, CDPSession } from 'playwright-core';
import { OBSERVE } from './observe.ts';
import { openQuietPage } from './quiet-page.ts';

/** A Chromium trace event, as Tracing.dataCollected hands it out (the fields the benches read). */
export type TraceEvent = {
  name: string;
  cat?: string;
  ph: string;
  ts: number;
  dur?: number;
  tdur?: number;
  tid: number;
  pid: number;
  args?: { data?: Record<string, unknown> & { url?: string }; frame?: string };
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
 * from navigation until `afterLoadMs` after load. Unlike ScriptDuration, which is wall time and counts the first
 * evaluation of a script but not the promise callbacks after it, this counts everything the page's scripts made the
 * main thread do, and not the moments the operating system gave the core to another process (the bench's machine
 * shares its cores between Chromium, the relay and the bench).
 */
export async function traceScriptCpu(browser: Browser, url: string, afterLoadMs: number): Promise<Map<string, number>> {
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
  await page.waitForTimeout(afterLoadMs);
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
