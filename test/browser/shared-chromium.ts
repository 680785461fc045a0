// The test worker's one Chromium (worker-browser.ts), launched exactly as launchBrowser launches it (as users have it).
// A file borrows it in beforeAll and gives it back in afterAll, which closes the contexts the file left open, so the
// next file starts with no page of the last one. A file that needs other switches, or a second browser beside this
// one, launches its own with launchBrowser.
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../../tools/chromium.ts';
import { lentPerWorker } from './worker-browser.ts';

export const borrowChromium: () => Promise<Browser> = lentPerWorker('Chromium', () => launchBrowser());

/** Closes every context the file left open in the shared browser; the browser itself stays for the next file. */
export async function giveBackChromium(browser: Browser | undefined): Promise<void> {
  if (!browser?.isConnected()) return;
  await Promise.all(browser.contexts().map((context) => context.close()));
}
