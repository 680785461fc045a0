// The classic-script entry of loader.js. It never throws into the host page: anything unexpected becomes the single
// console line.
import { boot, REPORT_PREFIX } from './boot.ts';
import { loadFrameScript } from './load-frame.ts';

/** The second file's path on the relay, written in by the loader build (vite.config.ts). */
declare const LOADER_FRAME_PATH: string;

try {
  boot({
    win: window,
    fetch: (input, init) => window.fetch(input, init),
    wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    report: (line) => console.warn(line),
    loadFrame: (relayOrigin, nonce) => loadFrameScript(document, LOADER_FRAME_PATH, relayOrigin, nonce),
  });
} catch {
  console.warn(REPORT_PREFIX + 'an unexpected error');
}
