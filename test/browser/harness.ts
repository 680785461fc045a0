// The browser test harness: real headless Chromium through playwright-core (tools/chromium.ts), and real HTTP
// servers on 127.0.0.1 for host pages (tools/host-pages.ts), which the benches use too; one Chromium per test worker,
// shared by the files it runs (shared-chromium.ts); and how a patient types.
import { whereKeysGoNow } from './key-route.ts';

export { CHROMIUM_PATH, PLAYWRIGHT_DISABLED_FEATURES, openPage } from '../../tools/chromium.ts';
export { serveHostPages, type HostPageServer } from '../../tools/host-pages.ts';
export { borrowChromium, giveBackChromium, launchTestChromium } from './shared-chromium.ts';

/**
 * Types `text` into the panel's composer and sends it, as a patient does: a click into the box, real keystrokes (or,
 * with 'paste', the whole text at once, as a paste or an IME puts it), Enter; then waits for the panel to show it as
 * the visitor's message. Keystrokes that do not arrive fail the test: issue 21 found the fallback that used to
 * dispatch an input event instead hid keystrokes really lost by patients.
 */
export async function typeAndSend(
  frame: import('playwright-core').Frame,
  text: string,
  how: 'type' | 'paste' = 'type',
): Promise<void> {
  const textarea = frame.locator('textarea');
  await textarea.click();
  if (how === 'paste') await textarea.fill(text);
  else await textarea.pressSequentially(text);
  const typed = await textarea.inputValue();
  if (typed !== text) {
    // Where the keys went instead, for the next engineer: the frame's focused element, and the page's.
    const focus = (target: { evaluate: typeof frame.evaluate }) =>
      target
        .evaluate(() => `${document.activeElement?.tagName ?? 'nothing'}, document focused: ${document.hasFocus()}`)
        .catch(() => 'unknown');
    throw new Error(
      `the composer holds ${typed.length} of the ${text.length} characters typed; focus in the frame: ${await focus(frame)}; in the page: ${await focus(frame.page())}; ${await whereKeysGoNow(frame)}`,
    );
  }
  await textarea.press('Enter');
  await frame.waitForFunction(
    (wanted) => [...document.querySelectorAll('.message.visitor .text')].some((node) => node.textContent === wanted),
    text,
    { timeout: 5_000 },
  );
}
