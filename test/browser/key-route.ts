// Where a key pressed now goes, for a test that found its keystrokes lost: CI has seen every key of a patient's text
// vanish (heard neither by the page nor by the frame) while both documents said the composer had focus, and it has not
// been reproduced here. What happens a moment later tells a loss of the moment from keys that go astray for good.
import type { Frame } from 'playwright-core';

/**
 * A Shift (which types nothing) pressed a second after the loss, as the page's and the frame's windows hear it, and
 * the age of the frame's document: a document replaced after the typing would hold none of it.
 */
export async function whereKeysGoNow(frame: Frame): Promise<string> {
  const page = frame.page();
  const listen = () => {
    const heard: string[] = [];
    (window as unknown as { heardKeys: string[] }).heardKeys = heard;
    addEventListener('keydown', (event) => heard.push((event.composedPath()[0] as Element).tagName ?? '?'), true);
  };
  const heard = () => (window as unknown as { heardKeys: string[] }).heardKeys.join(', ') || 'nothing';
  try {
    await Promise.all([page.evaluate(listen), frame.evaluate(listen)]);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // The press resolves once the browser has had the renderer's answer for it: the listeners have run.
    await page.keyboard.press('Shift');
    const [inPage, inFrame, age] = await Promise.all([
      page.evaluate(heard),
      frame.evaluate(heard),
      frame.evaluate(() => Math.round(performance.now())),
    ]);
    return `a Shift pressed a second later reached the page's ${inPage} and the frame's ${inFrame}; the frame's document is ${age} ms old`;
  } catch (error) {
    return `where a later key goes is unknown (${(error as Error).message.split('\n')[0]})`;
  }
}
