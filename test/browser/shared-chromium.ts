// The test worker's one Chromium (worker-browser.ts), launched as launchBrowser launches it for a test run: as users
// have it, less the processes no page can see (tools/chromium.ts). A file borrows it in beforeAll and gives it back in
// afterAll, which closes the contexts the file left open, so the next file starts with no page of the last one. A file
// that needs other switches, or a second browser beside this one, launches its own with launchBrowser, for a test run
// too.
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../../tools/chromium.ts';
import { lentPerWorker } from './worker-browser.ts';

export const borrowChromium: () => Promise<Browser> = lentPerWorker('Chromium', () =>
  launchBrowser([], { forTestRun: true }),
);

/** Closes every context the file left open in the shared browser; the browser itself stays for the next file. */
export async function giveBackChromium(browser: Browser | undefined): Promise<void> {
  if (!browser?.isConnected()) return;
  await Promise.all(browser.contexts().map((context) => context.close()));
}
