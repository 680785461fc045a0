// One browser per test worker, lent to the browser files that worker runs one after another. The browser projects
// keep one module graph per worker (vite.config.ts), so what this module holds lives as long as the worker. A browser
// launch is most of a short file's own CPU (Firefox's most of all; figures in bench/results.md), and each test still
// makes a fresh context (storage, cookies and cache of its own), which is what a browser of its own gave it.

/** Anything that says when it goes away: Playwright's and puppeteer's browsers both emit 'disconnected'. */
interface Disconnects {
  once(event: 'disconnected', listener: () => void): unknown;
}

/**
 * `launch`, done on the first borrow and kept for the worker's life: no file closes it, the worker's exit ends it
 * (Playwright and puppeteer kill the browsers they launched when their process exits). A browser that goes away
 * (a crash, or a file that closed it) fails the next borrow with the reason rather than handing out a dead browser,
 * whose every call would wait out its own time limit; the borrow after that launches a new one.
 */
export function lentPerWorker<B extends Disconnects>(name: string, launch: () => Promise<B>): () => Promise<B> {
  let shared: Promise<B> | undefined;
  let lost: Error | undefined;
  return () => {
    if (lost) {
      const reason = lost;
      lost = undefined;
      return Promise.reject(reason);
    }
    shared ??= launch().then(
      (browser) => {
        browser.once('disconnected', () => {
          shared = undefined;
          lost = new Error(`the shared ${name} of this test worker went away (it crashed, or a file closed it)`);
        });
        return browser;
      },
      (error: unknown) => {
        shared = undefined;
        throw error;
      },
    );
    return shared;
  };
}
