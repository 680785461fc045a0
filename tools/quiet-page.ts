// A fresh context and page whose window has finished starting up, for benches that time a page load.
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';

const POLL_MS = 100;
/** Polls in a row with no CPU time added by any of the browser's processes before the window counts as settled. */
const QUIET_POLLS = 2;
const GIVE_UP_MS = 5000;

async function browserCpuSeconds(session: CDPSession): Promise<number> {
  const { processInfo } = await session.send('SystemInfo.getProcessInfo');
  return processInfo.reduce((sum, process) => sum + process.cpuTime, 0);
}

/**
 * Chromium builds each new window's own pages (its omnibox popup is a page in a renderer of its own) for about half
 * a second after the window opens, on every core it can get. A patient's window is open long before they go to a
 * practice's site, so a bench that opened a window and navigated at once would time the page's load against the
 * window's start-up. This waits until the browser's processes have added no CPU time for a few polls (the counters
 * move in 10 ms steps), or gives up after five seconds and says so.
 */
export async function openQuietPage(browser: Browser): Promise<{ context: BrowserContext; page: Page }> {
  const session = await browser.newBrowserCDPSession();
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const page = await context.newPage();
  const giveUp = Date.now() + GIVE_UP_MS;
  let last = await browserCpuSeconds(session);
  for (let quiet = 0; quiet < QUIET_POLLS; ) {
    if (Date.now() > giveUp) {
      console.warn(`The browser was still busy ${GIVE_UP_MS} ms after opening a window; timing the page anyway.`);
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const now = await browserCpuSeconds(session);
    quiet = now > last ? 0 : quiet + 1;
    last = now;
  }
  await session.detach();
  return { context, page };
}
