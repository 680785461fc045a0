// The language switch's width, in Chromium, on the real frame page: its own, not its longest option's. Sized by its
// options, the panel's first layout (which a patient's first open waits for) shaped every language's name, each
// script through a fallback font of its own, in the frame's fresh renderer. And yet wide enough for every name, so
// none is cut short when it is the one chosen.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { borrowChromium, giveBackChromium } from './harness.ts';
import { loadFramePage } from './frame-page-tab.ts';
import { startProduct } from '../support/product.ts';

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

describe('the language switch', () => {
  it('keeps its width whatever its options say, and that width holds each name', async () => {
    await loadFramePage(page, product.relayUrl, 'en', { width: 400, height: 640 });
    const { drawn, withOneShortOption, widestAlone } = await page.evaluate(() => {
      const select = document.querySelector<HTMLSelectElement>('select.language')!;
      const drawn = select.getBoundingClientRect().width;
      const options = [...select.options];
      // Each name alone in a copy whose width comes from its option, as the switch's used to: the room that name needs.
      const widestAlone = Math.max(
        ...options.map((option) => {
          const copy = select.cloneNode(false) as HTMLSelectElement;
          copy.style.width = 'auto';
          copy.style.minWidth = 'auto';
          copy.append(option.cloneNode(true));
          select.after(copy);
          const width = copy.getBoundingClientRect().width;
          copy.remove();
          return width;
        }),
      );
      // The switch itself with only its first name left: a width taken from its options would shrink.
      for (const option of options.slice(1)) option.remove();
      const withOneShortOption = select.getBoundingClientRect().width;
      return { drawn, withOneShortOption, widestAlone };
    });
    expect(withOneShortOption).toBe(drawn);
    expect(drawn).toBeGreaterThanOrEqual(widestAlone);
  });
});
