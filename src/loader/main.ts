// The classic-script entry of loader.js. It never throws into the host page: anything unexpected becomes the single
// console line.
import { boot, REPORT_PREFIX, WORKER_REPORT } from './boot.ts';
import { loadFrameModule } from './load-frame.ts';

/** A worker's global scope's interface: defined only in a worker (TypeScript's DOM library does not know it). */
declare const WorkerGlobalScope: unknown;

try {
  // A tag run in a web worker cannot draw a launcher that works. A plain worker shows its global scope's interface;
  // Partytown hides it behind a stand-in for the page's window and document (drawing through them, the launcher
  // half-mounts), and the one sign of it left is the type it gives the tag (text/partytown).
  if (typeof WorkerGlobalScope != 'undefined' || document.currentScript?.type.includes('party'))
    console.warn(REPORT_PREFIX + WORKER_REPORT);
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
