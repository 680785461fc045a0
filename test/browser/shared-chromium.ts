// One Chromium per test worker, shared by the browser files that worker runs one after another. The browser projects
// keep one module graph per worker (vite.config.ts), so this module's state lives as long as the worker: a file borrows
// the browser in beforeAll and gives it back in afterAll, which closes the contexts the file left open, so the next
// file starts with no page of the last one. Each test still makes a fresh context (storage, cookies, cache of its
// own), which is what a fresh browser per file gave it; the launch it saves is most of a short file's own CPU.
// The browser is launched exactly as launchBrowser launches it (as users have it); a file that needs other switches,
// or a second browser beside this one, launches its own with launchBrowser.
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../../tools/chromium.ts';

let shared: Promise<Browser> | undefined;
/** Why the last shared browser went away without being asked: told to the next file that borrows one. */
let lost: Error | undefined;

/**
 * The worker's Chromium, launched on first use. It is never closed by a file: the worker's exit ends it (Playwright
 * kills the browsers it launched when their process exits).
 */
export function borrowChromium(): Promise<Browser> {
  if (lost) {
    // A crash (or a file that closed the shared browser) fails the next file loudly rather than handing it a dead
    // browser whose calls would each wait out their own time limit; the file after that gets a new browser.
    const reason = lost;
    lost = undefined;
    return Promise.reject(reason);
  }
  shared ??= launchBrowser().then(
    (browser) => {
      browser.on('disconnected', () => {
        shared = undefined;
        lost = new Error('the shared Chromium of this test worker went away (crashed, or a file closed it)');
      });
      return browser;
    },
    (error: unknown) => {
      shared = undefined;
      throw error;
    },
  );
  return shared;
}

/** Closes every context the file left open in the shared browser; the browser itself stays for the next file. */
export async function giveBackChromium(browser: Browser | undefined): Promise<void> {
  if (!browser?.isConnected()) return;
  await Promise.all(browser.contexts().map((context) => context.close()));
}
