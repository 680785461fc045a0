// Only the visitor's language travels: neither the panel's script nor the loader holds any catalog's words (the
// relay puts one catalog in the frame page), and the frame, page included, stays within its budget in every language.
// Needs `npm run build`.
import { describe, expect, it } from 'vitest';
import { CATALOGS } from '../../../src/shared/locales/catalogs.ts';
import { LOCALE_TAGS } from '../../../src/shared/locales/locale-list.ts';
import { createRelayHarness, RELAY_ORIGIN } from '../relay/relay-harness.ts';
import { brotliSize, FRAME_PAGE_BROTLI_CEILING, frameAssets, readBuilt } from './budgets.ts';

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
  const harness = createRelayHarness();
  const assets = frameAssets().reduce((total, file) => total + brotliSize(readBuilt(file)), 0);

  // The assets are the same for every language (FRAME_BROTLI_CEILING, frame-bundle.test.ts); the page carries the
  // language. Its figure is printed beside the assets', so the total a visitor downloads is on record per language.
  it.each(LOCALE_TAGS)(
    `%s: the page, catalog included, at most ${FRAME_PAGE_BROTLI_CEILING} bytes brotli`,
    async (tag) => {
      const response = await harness.app.request(`${RELAY_ORIGIN}/frame?client_id=smile-dental&locale=${tag}`);
      const page = new Uint8Array(await response.arrayBuffer());
      const size = brotliSize(page);
      console.info(
        `frame in ${tag}: page ${page.length} B, ${size} B brotli; with the assets (${assets} B brotli): ${size + assets} B`,
      );
      expect(size).toBeLessThanOrEqual(FRAME_PAGE_BROTLI_CEILING);
    },
  );
});
