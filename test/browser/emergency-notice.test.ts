// The emergency notice, whole and right in every language at every size the panel is given, as real Chromium draws
// it: a notice cut short can say the opposite of itself (Persian ends "this chat is not for emergencies" with its
// negation, so a line cut before it reads "this chat is for emergencies"). Wherever the panel is short the notice
// folds to its instruction, a whole sentence; focused, it shows all of it. Either way every character shown is drawn
// inside the notice's box and the viewport (nothing ellipsized, clipped or squeezed), what is shown is exactly one of
// those two texts, and the notice's focus target is at least 24 CSS px (WCAG 2.5.8). Checked on the greeting and
// with the sensitive-data warning open (which takes most of a short panel), each without and with WCAG 1.4.12's text
// spacing. The frame page is loaded on its own at each size, which is what the panel is: it fills whatever frame the
// loader gives it; every load is in the file's one tab (frame-page-tab.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { borrowChromium, giveBackChromium } from './harness.ts';
import { loadFramePage } from './frame-page-tab.ts';
import { startProduct } from '../support/product.ts';
import { CATALOGS } from '../../src/shared/locales/catalogs.ts';
import { LOCALE_TAGS, type LocaleTag } from '../../src/shared/locales/locale-list.ts';
import { createStrings } from '../../src/frame/i18n.ts';
import { sentenceGap } from '../../src/frame/text/sentence-gap.ts';

let browser: Browser;
let product: Awaited<ReturnType<typeof startProduct>>;
let page: Page;

beforeAll(async () => {
  [browser, product] = await Promise.all([borrowChromium(), startProduct()]);
  page = await browser.newPage();
});
afterAll(async () => {
  await Promise.all([giveBackChromium(browser), product?.close()]);
});

/**
 * The panel's sizes, in CSS px: the corner panel at its tallest and at its shortest (the loader gives it
 * min(640, viewport − 108) under a viewport taller than 480), a phone upright, 400 % zoom of 1280×1024 both ways, a phone
 * held sideways (the loader fills the viewport wherever it is at most 480 wide or tall).
 */
const SIZES: [number, number][] = [
  [380, 640],
  [380, 373],
  [390, 844],
  [320, 256],
  [256, 320],
  [844, 390],
];

/** WCAG 1.4.12's values, as its bookmarklets apply them: a patient's own stylesheet wins over the panel's. */
const TEXT_SPACING =
  '* { line-height: 1.5 !important; letter-spacing: 0.12em !important; word-spacing: 0.16em !important }' +
  ' p { margin-bottom: 2em !important }';

/** The two texts a patient may be shown: the folded notice's instruction, or the whole notice. */
function noticeTexts(tag: LocaleTag) {
  const strings = createStrings(CATALOGS[tag], tag);
  const notice = strings.emergencyNotice();
  return {
    instruction: plain(strings.emergencyInstruction()),
    whole: plain(notice + sentenceGap(notice) + strings.automatedNotice('Sunny')),
  };
}
/** Without the isolates that keep a name's direction (they draw nothing), spaces as one. */
const plain = (text: string) =>
  text
    .replace(/[\u2066-\u2069]/g, '')
    .replace(/\s+/g, ' ')
    .trim();

/**
 * The notice as drawn: the text it shows (each text node not hidden: neither `display: none` nor inside a box of at
 * most 1×1 px, the visually-hidden pattern a screen reader still reads), the parts of it drawn outside the notice's
 * box or the viewport, its overflow, its size and whether it is a focus target.
 */
const drawnNotice = (page: Page) =>
  page.evaluate(() => {
    const notice = [...document.querySelectorAll<HTMLElement>('.notice')].find((element) =>
      element.querySelector('strong'),
    )!;
    notice.scrollIntoView({ block: 'nearest' });
    const box = notice.getBoundingClientRect();
    const hidden = (node: Node) => {
      if (!node.parentElement!.checkVisibility()) return true;
      for (let element = node.parentElement; element && element !== notice; element = element.parentElement) {
        const rect = element.getBoundingClientRect();
        if (rect.width <= 1 && rect.height <= 1) return true;
      }
      return false;
    };
    const outside = (rect: DOMRect) =>
      rect.left < Math.max(box.left, 0) - 0.5 ||
      rect.right > Math.min(box.right, innerWidth) + 0.5 ||
      rect.top < Math.max(box.top, 0) - 0.5 ||
      rect.bottom > Math.min(box.bottom, innerHeight) + 0.5;
    let shown = '';
    const cut: string[] = [];
    const walker = document.createTreeWalker(notice, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
      if (hidden(node)) continue;
      shown += node.data;
      const range = document.createRange();
      range.selectNodeContents(node);
      if ([...range.getClientRects()].some((rect) => rect.width > 0 && outside(rect))) cut.push(node.data);
    }
    return {
      shown,
      cut,
      overflows: notice.scrollWidth > notice.clientWidth || notice.scrollHeight > notice.clientHeight,
      width: box.width,
      height: box.height,
      focusTarget: notice.tabIndex >= 0,
    };
  });

type Drawn = Awaited<ReturnType<typeof drawnNotice>>;

/** The notice folded (or never folded, where the panel is tall) and then focused, each whole and right. */
async function expectWholeAndRight(page: Page, tag: LocaleTag, where: string) {
  const { instruction, whole } = noticeTexts(tag);
  const check = (drawn: Drawn, state: string) => {
    const what = `${where}, ${state}: ${JSON.stringify(drawn)}`;
    expect(drawn.cut, what).toEqual([]);
    expect(drawn.overflows, what).toBe(false);
    expect([instruction, whole], what).toContain(plain(drawn.shown));
    if (drawn.focusTarget) expect(Math.min(drawn.width, drawn.height), what).toBeGreaterThanOrEqual(24);
  };
  const folded = await drawnNotice(page);
  check(folded, 'as it opens');
  if (!folded.focusTarget) return expect(plain(folded.shown), where).toBe(whole);
  const focusNotice = (focus: boolean) =>
    page.evaluate((focus) => {
      const notice = [...document.querySelectorAll<HTMLElement>('.notice')].find((element) =>
        element.querySelector('strong'),
      )!;
      if (focus) notice.focus();
      else notice.blur();
    }, focus);
  // The panel gives its composer focus in a task of its own once it has opened; on a loaded machine that task can
  // come after this focus and take it from the notice, so focus the notice again until it holds it.
  let opened: Drawn | undefined;
  await expect
    .poll(
      async () => {
        await focusNotice(true);
        opened = await drawnNotice(page);
        return plain(opened.shown);
      },
      { message: `${where}, focused`, timeout: 10_000 },
    )
    .toBe(whole);
  check(opened!, 'focused');
  await focusNotice(false);
}

const spacing = (page: Page, on: boolean) =>
  page.evaluate(
    ([css, on]) => {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(css);
      document.adoptedStyleSheets = on ? [sheet] : [];
    },
    [TEXT_SPACING, on] as const,
  );

describe.each(LOCALE_TAGS)('the emergency notice in %s, as Chromium draws it', (tag) => {
  it.each(SIZES)('%i×%i: whole, never cut, a target of 24 px or more', { timeout: 60_000 }, async (width, height) => {
    await loadFramePage(page, product.relayUrl, tag, { width, height });
    for (const on of [false, true]) {
      await spacing(page, on);
      await expectWholeAndRight(page, tag, `${tag} ${width}×${height}${on ? ', text spacing' : ''}`);
    }
    await spacing(page, false);
    await page.locator('textarea').fill('my card is 4111 1111 1111 1111');
    await page.locator('textarea').press('Enter');
    await page.locator('.warning').waitFor();
    for (const on of [false, true]) {
      await spacing(page, on);
      await expectWholeAndRight(page, tag, `${tag} ${width}×${height}, warning open${on ? ', text spacing' : ''}`);
    }
  });
});
