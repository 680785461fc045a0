// The classic-script entry of loader.js. It never throws into the host page: anything unexpected becomes the single
// console line.
import { boot, REPORT_PREFIX, WORKER_REPORT } from './boot.ts';
import { loadFrameModule } from './load-frame.ts';

try {
  // A tag run in a web worker cannot draw a launcher that works. A plain worker has no document; Partytown gives the
  // tag stand-ins for the page's window and document (drawing through them, the launcher half-mounts), and the sign
  // of it is the type it gives the tag. The second `?.`: markup can name an element "currentScript" (DOM clobbering),
  // which the document then answers with, and which may have no type.
  if (typeof document === 'undefined' || document.currentScript?.type?.includes('partytown'))
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
