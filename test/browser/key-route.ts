// Where a key pressed now goes, for a test that found its keystrokes lost: CI has seen every key of a patient's text
// go astray while both documents said the composer had focus (once, a key pressed a second later reached the page's
// <iframe> element: Chromium sent it to the page, not to the frame), and it has not been reproduced on demand. What
// happens a moment later tells a loss of the moment from keys that go astray for good, and which way of moving focus
// again brings them back: the answer says whether the loader could mend it.
import type { Frame } from 'playwright-core';

/**
 * A Shift (which types nothing) pressed a second after the loss, as the page's and the frame's windows hear it, and
 * the age of the frame's document (a document replaced after the typing would hold none of it); then, while the frame
 * still hears nothing, a Shift after each of: a click into the composer, and the page moving focus off its <iframe>
 * and back.
 */
export async function whereKeysGoNow(frame: Frame): Promise<string> {
  const page = frame.page();
  const listen = () => {
    const heard: string[] = [];
    (window as unknown as { heardKeys: string[] }).heardKeys = heard;
    addEventListener('keydown', (event) => heard.push((event.composedPath()[0] as Element).tagName ?? '?'), true);
  };
  /** What each window heard since the last look, and forgets it. */
  const heard = () => (window as unknown as { heardKeys: string[] }).heardKeys.splice(0).join(', ') || 'nothing';
  // The press resolves once the browser has had the renderer's answer for it: the listeners have run.
  const shift = async () => {
    await page.keyboard.press('Shift');
    const [inPage, inFrame] = await Promise.all([page.evaluate(heard), frame.evaluate(heard)]);
    return { inPage, inFrame, said: `the page's ${inPage} and the frame's ${inFrame}` };
  };
  try {
    await Promise.all([page.evaluate(listen), frame.evaluate(listen)]);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const later = await shift();
    const age = await frame.evaluate(() => Math.round(performance.now()));
    let report = `a Shift pressed a second later reached ${later.said}; the frame's document is ${age} ms old`;
    if (later.inFrame !== 'nothing') return report;
    await frame.locator('textarea').click();
    const clicked = await shift();
    report += `; after a click into the composer, ${clicked.said}`;
    if (clicked.inFrame !== 'nothing') return report;
    await page.locator('practice-chat-q7x iframe').evaluate((element: HTMLIFrameElement) => {
      element.blur();
      element.focus();
    });
    return `${report}; after the page moved focus off its <iframe> and back, ${(await shift()).said}`;
  } catch (error) {
    return `where a later key goes is unknown (${(error as Error).message.split('\n')[0]})`;
  }
}
