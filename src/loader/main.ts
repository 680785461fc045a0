// The classic-script entry of loader.js. It never throws into the host page: anything unexpected becomes the single
// console line.
import { boot, REPORT_PREFIX } from './boot.ts';

try {
  boot({
    win: window,
    fetch: (input, init) => window.fetch(input, init),
    wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    report: (line) => console.warn(line),
  });
} catch {
  console.warn(REPORT_PREFIX + 'an unexpected error');
}
