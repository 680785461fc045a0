// A fresh context and page whose window has finished starting up, for the loads bench:page times.
import type { Browser, BrowserContext, BrowserContextOptions, CDPSession, Page } from 'playwright-core';

const POLL_MS = 100;
/** Polls in a row in which no process of the browser used CPU time before the window counts as settled. */
const QUIET_POLLS = 2;
const GIVE_UP_MS = 5000;

/** Windows that never settled: their loads were timed anyway, and the bench's summary says how many. */
export const unsettledWindows = { count: 0 };

async function cpuSecondsByProcess(session: CDPSession): Promise<Map<number, number>> {
  const { processInfo } = await session.send('SystemInfo.getProcessInfo');
  return new Map(processInfo.map((process) => [process.id, process.cpuTime]));
}

/**
 * Whether any process used CPU between two readings. A process that appeared in between counts as busy (it is
 * starting); one that left does not count at all: its total leaving the sum must not pass for a quiet poll.
 */
function anyBusy(before: Map<number, number>, after: Map<number, number>): boolean {
  for (const [id, seconds] of after) if (seconds > (before.get(id) ?? -1)) return true;
  return false;
}

/**
 * Chromium builds each new window's own pages (its omnibox popup is a page in a renderer of its own) for a while
 * after the window opens, on every core it can get. A patient's window is open long before they go to a practice's
 * site, so a bench that opened a window and navigated at once would time the page's load against the window's
 * start-up. This waits, on the blank page, until no process of the browser has used CPU for a few polls, or gives
 * up, counts it, and lets the load be timed anyway.
 */
export async function openQuietPage(
  browser: Browser,
  options: BrowserContextOptions = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const session = await browser.newBrowserCDPSession();
  try {
    const context = await browser.newContext({ ignoreHTTPSErrors: true, ...options });
    const page = await context.newPage();
    const giveUp = Date.now() + GIVE_UP_MS;
    let last = await cpuSecondsByProcess(session);
    for (let quiet = 0; quiet < QUIET_POLLS; ) {
      if (Date.now() > giveUp) {
        unsettledWindows.count++;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      const now = await cpuSecondsByProcess(session);
      quiet = anyBusy(last, now) ? 0 : quiet + 1;
      last = now;
    }
    return { context, page };
  } finally {
    await session.detach();
  }
}
