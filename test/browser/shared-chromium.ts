// The test worker's one Chromium (worker-browser.ts), launched as launchTestChromium launches every Chromium of the
// tests: as users have it, less the processes no page can see (tools/chromium.ts). A file borrows it in beforeAll and
// gives it back in afterAll, which closes the contexts the file left open, so the next file starts with no page of the
// last one. A file that needs a second browser beside this one launches its own with launchTestChromium.
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../../tools/chromium.ts';
import { lentPerWorker } from './worker-browser.ts';

/** A Chromium for the tests: the benches' launch, less the processes a test's short-lived tabs never use. */
export const launchTestChromium = (): Promise<Browser> => launchBrowser([], { forTestRun: true });

export const borrowChromium: () => Promise<Browser> = lentPerWorker('Chromium', launchTestChromium);

/** Closes every context the file left open in the shared browser; the browser itself stays for the next file. */
export async function giveBackChromium(browser: Browser | undefined): Promise<void> {
  if (!browser?.isConnected()) return;
  await Promise.all(browser.contexts().map((context) => context.close()));
}
