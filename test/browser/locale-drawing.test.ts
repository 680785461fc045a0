// How each language is drawn, in real Chromium at 390 px, on the real frame page: every glyph of the language's catalog
// (and every language's name in the switch) has a font, so nothing falls back to a missing-glyph box; Arabic and
// Persian show an empty composer's placeholder on the right; Korean breaks lines between words only; Chinese and
// Japanese join the emergency and automated notices with no space after "。"; a title never leaves one character
// alone on its last line. The fonts come from the machine: `npm test` installs the CJK ones
// (test/support/ensure-tools.mjs).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { borrowChromium, giveBackChromium } from './harness.ts';
import { loadFramePage } from './frame-page-tab.ts';
import { startProduct } from '../support/product.ts';
import { CATALOGS } from '../../src/shared/locales/catalogs.ts';
import { LOCALE_TAGS, localeInfo, type LocaleTag } from '../../src/shared/locales/locale-list.ts';

let browser: Browser;
let product: Awaited<ReturnType<typeof startProduct>>;
/** The file's one tab: each language's frame page is loaded in it (frame-page-tab.ts). */
let page: Page;

beforeAll(async () => {
  [browser, product] = await Promise.all([borrowChromium(), startProduct()]);
  page = await browser.newPage();
});
afterAll(async () => {
  await Promise.all([giveBackChromium(browser), product?.close()]);
});

/** Every text of a catalog, placeholders filled as the panel fills them. */
function catalogTexts(tag: LocaleTag): string[] {
  const out: string[] = [];
  const walk = (value: unknown) => {
    if (typeof value === 'string') out.push(value.replace(/\{\w+\}/g, 'Sunny 911'));
    else if (value && typeof value === 'object') for (const inner of Object.values(value)) walk(inner);
  };
  walk(CATALOGS[tag]);
  return out;
}

/** The distinct characters that draw a glyph of their own (no spaces, combining marks or invisible controls). */
const drawnCharacters = (texts: string[]) => [...new Set(texts.join('').replace(/[\s\p{M}\p{Cf}]/gu, ''))];

/**
 * The characters that Chromium draws as its missing-glyph box, each drawn in a canvas in the page's font and language
 * (the same font fallback as the panel's text) and compared with a code point no font has (U+0378, unassigned).
 */
const boxedCharacters = (page: Page, characters: string[], lang: string) =>
  page.evaluate(
    ({ characters, lang }) => {
      const canvas = document.createElement('canvas');
      canvas.width = 80;
      canvas.height = 80;
      canvas.lang = lang;
      document.body.append(canvas);
      const context = canvas.getContext('2d', { willReadFrequently: true })!;
      context.font = `40px ${getComputedStyle(document.body).fontFamily}`;
      const draw = (text: string) => {
        context.clearRect(0, 0, 80, 80);
        context.fillText(text, 10, 55);
        return context.getImageData(0, 0, 80, 80).data.join();
      };
      const box = draw('\u0378');
      const boxed = characters.filter((character) => draw(character) === box);
      canvas.remove();
      return boxed;
    },
    { characters, lang },
  );

/**
 * Each text node under `selector` as drawn: its text cut where a line box ends (a character whose box starts lower than
 * the one before it starts a line), spaces kept where they were, so a line that ends without one broke a word.
 */
const drawnLines = (page: Page, selector: string) =>
  page.locator(selector).evaluate((root) => {
    const nodes: string[][] = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
      if (node.parentElement?.closest('select, option, .visually-hidden')) continue;
      const starts: number[] = [];
      let top: number | null = null;
      for (let index = 0; index < node.data.length; index++) {
        const range = document.createRange();
        range.setStart(node, index);
        range.setEnd(node, index + 1);
        const box = range.getClientRects()[0];
        if (!box || box.width === 0) continue;
        if (top === null || box.top > top + box.height / 2) {
          starts.push(starts.length === 0 ? 0 : index);
          top = box.top;
        }
      }
      if (starts.length > 0) nodes.push(starts.map((start, line) => node.data.slice(start, starts[line + 1])));
    }
    return nodes;
  });

describe.each(LOCALE_TAGS)('%s as drawn in Chromium at 390 px', (tag) => {
  // One load of the language's frame page, as a phone shows it (the panel fills the frame), for its three tests: the
  // first two only read what is drawn (the canvas the first draws in is removed again), and the last, which types into
  // the composer, runs last.
  beforeAll(async () => {
    await loadFramePage(page, product.relayUrl, tag, { width: 390, height: 844 });
  });

  it('has a font for every glyph of its catalog, and of every language named in the switch', async () => {
    expect(
      await boxedCharacters(page, drawnCharacters(catalogTexts(tag)), localeInfo(tag).lang),
      `${tag} catalog`,
    ).toEqual([]);
    for (const other of LOCALE_TAGS) {
      const { autonym, lang } = localeInfo(other);
      expect(
        await boxedCharacters(page, drawnCharacters([autonym]), lang),
        `${other}'s name in the ${tag} switch`,
      ).toEqual([]);
    }
  });

  it('leaves no character alone on the last line of the title, and breaks Korean between words only', async () => {
    const title = (await drawnLines(page, '#chat-title')).flat();
    expect(title.length === 1 || [...title.at(-1)!.trim()].length > 1, `title drawn as ${JSON.stringify(title)}`).toBe(
      true,
    );
    if (tag === 'ko') {
      // A line that ends in a syllable while the next starts with one broke a word ("채/팅").
      for (const block of await drawnLines(page, 'body')) {
        for (let index = 1; index < block.length; index++) {
          const broken = /\p{Script=Hangul}$/u.test(block[index - 1]!) && /^\p{Script=Hangul}/u.test(block[index]!);
          expect(broken, `a word broken between "${block[index - 1]}" and "${block[index]}"`).toBe(false);
        }
      }
    }
  });

  it("joins its notices as the language writes sentences, and shows the empty composer's placeholder on its own side", async () => {
    // Chinese and Japanese put no space after a full-width stop.
    const notice = await page
      .locator('.notice')
      .filter({ has: page.locator('strong') })
      .textContent();
    if (['zh-Hans', 'zh-Hant', 'ja'].includes(tag)) expect(notice).not.toMatch(/[。！？]\s/u);
    else expect(notice).toMatch(/[.!?։۔।]\s\S/u);
    // The placeholder is in the panel's language: an empty composer takes the panel's direction.
    const textarea = page.locator('textarea');
    expect(await textarea.evaluate((element) => getComputedStyle(element).direction)).toBe(localeInfo(tag).dir);
    // Typed words still take their own direction.
    await textarea.fill('Ibuprofen 200 mg');
    expect(await textarea.evaluate((element) => getComputedStyle(element).direction)).toBe('ltr');
  });
});
