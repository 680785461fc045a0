// The classic-script entry of loader.js. It never throws into the host page: anything unexpected becomes the single
// console line.
import { boot, REPORT_PREFIX, WORKER_REPORT } from './boot.ts';
import { loadFrameModule } from './load-frame.ts';

/** A worker's global scope's interface: defined only in a worker (TypeScript's DOM library does not know it). */
declare const WorkerGlobalScope: unknown;

try {
  // Partytown runs the script in a worker with a stand-in for the page's window: names the worker has, such as its
  // global scope's interface, still show through it, and a launcher drawn through the stand-in could not work.
  if (typeof WorkerGlobalScope !== 'undefined') console.warn(REPORT_PREFIX + WORKER_REPORT);
  else
    boot({
      win: window,
      fetch,
      wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      report: console.warn,
      loadFrame: loadFrameModule,
    });
} catch {
  console.warn(REPORT_PREFIX + 'an unexpected error');
}
