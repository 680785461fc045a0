// A keyboard user's first words, in Chromium: Tab to the launcher on a freshly loaded page, Enter, and type the
// moment the composer appears. Issue 21 saw the whole text lost in 8 and 5 of 40 such loads (focus moved into the
// panel after the typing had begun), which the harness used to hide by dispatching an input event instead.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { borrowChromium, giveBackChromium, serveHostPages, type HostPageServer } from './harness.ts';
import { startProduct } from '../support/product.ts';
import { smileDentalPage } from '../support/host-page.ts';
import { whereKeysGoNow } from './key-route.ts';

const LOADS = 40;

let browser: Browser;
let product: Awaited<ReturnType<typeof startProduct>>;
let host: HostPageServer;

// The relay on another site than the page: the frame is a cross-site frame, as in the field.
const relay = () => `http://chat.vendor-relay.test:${new URL(product.relayUrl).port}`;
beforeAll(async () => {
  [browser, product] = await Promise.all([borrowChromium(), startProduct({ relayHost: 'chat.vendor-relay.test' })]);
  host = await serveHostPages({
    '/': () => ({
      body: smileDentalPage(relay()),
    }),
  });
});
afterAll(async () => {
  await Promise.all([giveBackChromium(browser), product?.close(), host?.close()]);
});

/** What each frame saw: when the composer was first in the DOM, and every keydown with the element it reached. */
interface TypingRecord {
  composerAt: number | null;
  keys: Array<{ key: string; at: number; target: string }>;
}

// Runs in the page and in every frame before their own scripts (Playwright injects it into cross-site frames too).
// Both sides stamp with the same wall clock, so the page's keydowns and the frame's composer compare.
function recordTyping() {
  const record: TypingRecord = { composerAt: null, keys: [] };
  (window as unknown as { typing: TypingRecord }).typing = record;
  const now = () => performance.timeOrigin + performance.now();
  addEventListener(
    'keydown',
    (event) =>
      record.keys.push({ key: event.key, at: now(), target: (event.composedPath()[0] as Element).tagName ?? '?' }),
    true,
  );
  new MutationObserver(() => {
    if (record.composerAt !== null || !document.querySelector('textarea')) return;
    record.composerAt = now();
    (window as unknown as { composerAppeared: () => void }).composerAppeared();
  }).observe(document, { childList: true, subtree: true });
}

const readRecord = (target: Page | Frame) =>
  target.evaluate(() => (window as unknown as { typing: TypingRecord }).typing);

// Long enough to go on well after the composer appears on a fresh load; letters only, so each key is one character.
const TEXT = 'can i come in today my tooth hurts since yesterday evening';
// Keys typed once the test hears that the composer is there: the moment focus used to move lies well within them, and
// typing on to the end of TEXT after that would prove nothing more.
const KEYS_AFTER_COMPOSER = 20;

/** A new context (a cold profile and cache) with its page open on nothing yet, as a patient's window is. */
async function freshTab(): Promise<{ context: BrowserContext; page: Page; composerSeen: () => boolean }> {
  const context = await browser.newContext();
  let seen = false;
  try {
    await context.exposeBinding('composerAppeared', () => {
      seen = true;
    });
    await context.addInitScript(recordTyping);
    return { context, page: await context.newPage(), composerSeen: () => seen };
  } catch (error) {
    await context.close();
    throw error;
  }
}

/**
 * Types TEXT key by key (as keyboard.type does, a 5 ms press each) until KEYS_AFTER_COMPOSER follow the composer.
 * Returns what it typed, and how many keys it had pressed once it heard that the composer was there: each of them came
 * after the composer appeared, but the one whose press was under way when the news came.
 */
async function typeAcrossComposer(
  page: Page,
  composerSeen: () => boolean,
): Promise<{ typed: string; afterComposer: number }> {
  let typed = '';
  let afterComposer = 0;
  for (const key of TEXT) {
    await page.keyboard.press(key, { delay: 5 });
    typed += key;
    if (composerSeen() && ++afterComposer >= KEYS_AFTER_COMPOSER) break;
  }
  return { typed, afterComposer };
}

describe('typing the moment the composer appears', () => {
  it(`loses no keystroke typed once the composer is there, in ${LOADS} fresh loads (keyboard: Tab, Enter, type at once)`, async () => {
    const failures: string[] = [];
    let next: ReturnType<typeof freshTab> | null = freshTab();
    for (let load = 0; next !== null; load++) {
      const { context, page, composerSeen } = await next;
      next = null;
      try {
        await page.goto(`http://www.smile-dental.test:${host.port}/`);
        await page.locator('practice-chat-q7x button').waitFor();
        await page.keyboard.press('Tab');
        await page.keyboard.press('Enter');
        const { typed, afterComposer } = await typeAcrossComposer(page, composerSeen);
        // The next load's context and page are made while this one's records are read: a renderer process's start is
        // most of a new tab's cost, and nothing this test looks at. Not earlier: a page made while keys are typed
        // here competes with this load's frame for the moment focus moves, which is what the test watches.
        if (load + 1 < LOADS) next = freshTab();
        const frameElement = page.locator('practice-chat-q7x iframe');
        const frame = (await (await frameElement.elementHandle())!.contentFrame())!;
        await frame.locator('textarea').waitFor();
        const [inPage, inFrame, value] = await Promise.all([
          readRecord(page),
          readRecord(frame),
          frame.locator('textarea').inputValue(),
        ]);
        const composerAt = inFrame.composerAt!;
        // Every key pressed once the composer existed must have reached it, in the page or in the frame.
        const astray = [...inPage.keys, ...inFrame.keys].filter(
          (key) => key.at >= composerAt && key.target !== 'TEXTAREA',
        );
        const reached = inFrame.keys.filter((key) => key.at >= composerAt).length;
        const heardInPage = inPage.keys.filter((key) => key.at >= composerAt).length;
        // A key that neither document heard is lost without going astray: the checks below, which look at what each
        // heard, cannot see it.
        const unheard = afterComposer - 1 - reached - heardInPage;
        if (reached === 0 || unheard > 0) {
          // Every key typed after the composer appeared went unheard by both documents once in CI.
          failures.push(
            `load ${load}: of the ${afterComposer} keys typed once the composer was there (each after it appeared, but the first perhaps), the frame heard ${reached} and the page ${heardInPage}; the composer holds ${value.length}; ${await whereKeysGoNow(frame)}`,
          );
        } else if (astray.length > 0 || !typed.endsWith(value) || value.length < reached) {
          const focus = await frame.evaluate(
            () => `${document.activeElement?.tagName}, frame focused: ${document.hasFocus()}`,
          );
          failures.push(
            `load ${load}: ${astray.length} keys after the composer appeared went to ${[...new Set(astray.map((key) => key.target))].join(', ')}; the composer holds ${value.length} of the ${reached} typed after it appeared; focus in the frame: ${focus}`,
          );
        }
      } catch (error) {
        // The next load's context, made already, goes too.
        await next?.then(({ context: made }) => made.close()).catch(() => undefined);
        throw error;
      } finally {
        await context.close();
      }
    }
    expect(failures, `${failures.length} of ${LOADS} loads lost keystrokes`).toEqual([]);
  }, 240_000);
});
