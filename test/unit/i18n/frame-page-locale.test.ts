// Only the visitor's language travels: the frame page carries one catalog (the one the loader was told, else the
// browser's), mirrored for Arabic and Persian; other languages come one at a time from /v1/locales/TAG.
import { afterAll, describe, expect, it } from 'vitest';
import { withLocale } from '../../../src/relay/frame/frame-page.ts';
import { CATALOGS } from '../../../src/shared/locales/catalogs.ts';
import { LOCALE_TAGS, localeInfo } from '../../../src/shared/locales/locale-list.ts';
import { createRelayHarness, RELAY_ORIGIN } from '../relay/relay-harness.ts';

const harness = createRelayHarness();
afterAll(() => harness.close());

const BLOCK = /<script type="application\/json" id="locale">([\s\S]*?)<\/script>/g;

async function framePage(query: string, acceptLanguage?: string) {
  const response = await harness.app.request(`${RELAY_ORIGIN}/frame?client_id=smile-dental${query}`, {
    headers: acceptLanguage ? { 'Accept-Language': acceptLanguage } : {},
  });
  expect(response.status).toBe(200);
  const html = await response.text();
  const blocks = [...html.matchAll(BLOCK)].map(
    (match) => JSON.parse(match[1]!) as { locale: string; catalog: unknown },
  );
  expect(blocks).toHaveLength(1);
  return { html, ...blocks[0]! };
}

/** Texts of a catalog long enough to be telling (not "Chat" or "911"). */
const tellingTexts = (tag: keyof typeof CATALOGS) =>
  JSON.stringify(CATALOGS[tag])
    .match(/"(?:[^"\\]|\\.){12,}"/g)!
    .map((quoted) => JSON.parse(quoted) as string);

describe('the frame page', () => {
  it.each(LOCALE_TAGS)("in %s carries that catalog, and no other language's words", async (tag) => {
    const { html, locale, catalog } = await framePage(`&locale=${tag}`);
    expect(locale).toBe(tag);
    expect(catalog).toEqual(CATALOGS[tag]);
    expect(html).toContain(`<html lang="${localeInfo(tag).lang}" dir="${localeInfo(tag).dir}">`);
    for (const other of LOCALE_TAGS.filter((other) => other !== tag)) {
      // Shared words ("Chat" in several languages) are too short to be counted here.
      const leaked = tellingTexts(other).filter(
        (text) => !tellingTexts(tag).includes(text) && html.includes(JSON.stringify(text).slice(1, -1)),
      );
      expect(leaked, `${other} in the ${tag} page`).toEqual([]);
    }
  });

  it("takes the browser's language when the loader names none, and English when it has none of ours", async () => {
    expect((await framePage('', 'nl-BE, zh-HK;q=0.9')).locale).toBe('zh-Hant');
    expect((await framePage('&locale=', 'pt-BR')).locale).toBe('pt');
    expect((await framePage('&locale=xx', 'nl')).locale).toBe('en');
    expect((await framePage('&locale=%22%3E%3Cscript%3E', 'sv')).html).toContain('<html lang="en" dir="ltr">');
  });

  it("marks the Brazilian catalog's page pt-BR, and still negotiates `pt` and `pt-BR` to it", async () => {
    for (const asked of ['&locale=pt', '&locale=pt-BR', '&locale=pt_BR']) {
      const page = await framePage(asked);
      expect(page.locale).toBe('pt');
      expect(page.html).toContain('<html lang="pt-BR" dir="ltr">');
    }
  });

  it("titles the page in the visitor's language", async () => {
    expect((await framePage('&locale=de')).html).toContain('<title>Chat mit Sunny</title>');
    expect((await framePage('&locale=ar')).html).toContain('<title>الدردشة مع \u2068Sunny\u2069</title>');
  });

  it('escapes a title that could be read as markup', () => {
    const html = withLocale('<html lang="en"><head><title>Chat</title><!--locale--></head>', {
      tag: 'en',
      lang: 'en',
      dir: 'ltr',
      title: 'Chat with <b>"Mo" & co</b>',
      catalog: { close: '</script><script>alert(1)</script>' },
    });
    expect(html).toContain('<title>Chat with &#60;b&#62;&#34;Mo&#34; &#38; co&#60;/b&#62;</title>');
    expect(html.match(/<script/g)).toHaveLength(1);
  });
});

describe('GET /v1/locales/TAG', () => {
  it.each(LOCALE_TAGS)('answers the %s catalog, cacheable', async (tag) => {
    const response = await harness.app.request(`${RELAY_ORIGIN}/v1/locales/${tag}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('Cache-Control')).toBe('public, max-age=3600');
    expect(response.headers.get('Access-Control-Allow-Origin')).toBeNull();
    expect(await response.json()).toEqual({ locale: tag, catalog: CATALOGS[tag] });
  });

  it.each(['xx', 'EN', 'zh', 'zh-TW', '__proto__', 'constructor', '..%2Fpackage.json'])(
    'answers 404 not_found for %s',
    async (tag) => {
      const response = await harness.app.request(`${RELAY_ORIGIN}/v1/locales/${tag}`);
      expect(response.status).toBe(404);
      expect((await response.json()).error.code).toBe('not_found');
    },
  );
});

describe('the frame page on the wire', () => {
  it('is brotli-compressed when the browser accepts it, and plain otherwise', async () => {
    const { brotliDecompressSync } = await import('node:zlib');
    const request = (acceptEncoding: string) =>
      harness.app.request(`${RELAY_ORIGIN}/frame?client_id=smile-dental&locale=ru`, {
        headers: { 'Accept-Encoding': acceptEncoding },
      });
    const compressed = await request('gzip, deflate, br, zstd');
    expect(compressed.headers.get('Content-Encoding')).toBe('br');
    expect(compressed.headers.get('Vary')).toContain('Accept-Encoding');
    const bytes = Buffer.from(await compressed.arrayBuffer());
    const html = brotliDecompressSync(bytes).toString('utf8');
    expect(html).toContain('<html lang="ru" dir="ltr">');
    expect(bytes.length).toBeLessThan(Buffer.byteLength(html) / 2);
    for (const refused of ['gzip', 'br;q=0', '']) {
      const plain = await request(refused);
      expect(plain.headers.get('Content-Encoding'), refused).toBeNull();
      expect(await plain.text()).toBe(html);
    }
  });
});
