// Only the visitor's language travels: neither the panel's script nor the loader holds any catalog's words (the
// relay puts one catalog in the frame page), and the frame, page included, stays within its budget in every language.
// Needs `npm run build`.
import { afterAll, describe, expect, it } from 'vitest';
import { CATALOGS } from '../../../src/shared/locales/catalogs.ts';
import { LOCALE_TAGS } from '../../../src/shared/locales/locale-list.ts';
import { createRelayHarness, RELAY_ORIGIN } from '../relay/relay-harness.ts';
import { BUILT_DIR, brotliSize, FRAME_PAGE_BROTLI_CEILING, frameAssets, readBuilt } from './budgets.ts';

const frameScript = frameAssets()
  .filter((file) => file.endsWith('.js'))
  .map((file) => readBuilt(file).toString('utf8'))
  .join('\n');
const loader = readBuilt('loader.js').toString('utf8');

describe.each(LOCALE_TAGS)('%s', (tag) => {
  // Every text's words up to its first placeholder, when 8 characters or more and not one ASCII word
  // ("Conversation" is also in code's names).
  const leaves = (value: unknown): string[] =>
    typeof value === 'string' ? [value] : Object.values(value as object).flatMap(leaves);
  const texts = leaves(CATALOGS[tag])
    .map((text) => text.split('{')[0]!)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the range is all of ASCII; outside it means non-Latin text.
    .filter((text) => text.length >= 8 && /\s|[^\x00-\x7f]/.test(text));

  it("is not in the panel's script nor in the loader", () => {
    expect(texts.length).toBeGreaterThan(20);
    expect(texts.filter((text) => frameScript.includes(text))).toEqual([]);
    expect(texts.filter((text) => loader.includes(text))).toEqual([]);
  });
});

describe('the frame on the wire, in every language', () => {
  // The real build: the page carries the built panel's script and stylesheet inline (src/relay/frame/frame-page.ts).
  const harness = createRelayHarness({ distDir: BUILT_DIR });
  const assetTexts = frameAssets().map((file) => readBuilt(file).toString('utf8'));
  const assets = frameAssets().reduce((total, file) => total + brotliSize(readBuilt(file)), 0);
  afterAll(() => harness.close());

  // The panel's script and stylesheet are the same in every language, and FRAME_BROTLI_CEILING bounds them
  // (frame-bundle.test.ts): the page carries exactly those files, each once. What remains when they are taken out is
  // the page's own part, the configuration and the language, which FRAME_PAGE_BROTLI_CEILING bounds. The whole page's
  // figure is printed beside both, so the total a visitor downloads is on record per language.
  it.each(LOCALE_TAGS)(
    `%s: the page, catalog included, at most ${FRAME_PAGE_BROTLI_CEILING} bytes brotli besides the panel's files`,
    async (tag) => {
      const response = await harness.app.request(`${RELAY_ORIGIN}/frame?client_id=smile-dental&locale=${tag}`);
      const page = await response.text();
      expect(assetTexts.map((text) => page.split(text).length - 1)).toEqual(assetTexts.map(() => 1));
      const ownPart = assetTexts.reduce((rest, text) => rest.replace(text, ''), page);
      const size = brotliSize(Buffer.from(ownPart));
      const whole = brotliSize(Buffer.from(page));
      console.info(
        `frame in ${tag}: page's own part ${Buffer.byteLength(ownPart)} B, ${size} B brotli; panel's files ${assets} B brotli; whole page ${Buffer.byteLength(page)} B, ${whole} B brotli`,
      );
      expect(size).toBeLessThanOrEqual(FRAME_PAGE_BROTLI_CEILING);
    },
  );
});
