// Every language has every text the launcher and the panel show, with the same placeholders as English, a form for
// each plural category its Intl.PluralRules uses, and nothing left in English.
import { describe, expect, it } from 'vitest';
import { ERROR_KEYS, TEXT_KEYS, parseCatalog, type Catalog } from '../../../src/shared/locales/catalog.ts';
import { CATALOGS } from '../../../src/shared/locales/catalogs.ts';
import { LOCALE_TAGS, localeInfo } from '../../../src/shared/locales/locale-list.ts';

/** Every text of a catalog by its path: `close`, `errors.network`, `suggestions.0`, `charactersLeft.one`. */
function texts(catalog: Catalog): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (prefix: string, value: unknown) => {
    if (typeof value === 'string') out.set(prefix, value);
    else for (const [key, inner] of Object.entries(value as object)) walk(prefix ? `${prefix}.${key}` : key, inner);
  };
  walk('', catalog);
  return out;
}

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();
const english = texts(CATALOGS.en);
const others = LOCALE_TAGS.filter((tag) => tag !== 'en');

describe('the catalogs', () => {
  it('cover the 17 languages US practices need, and no other', () => {
    expect([...LOCALE_TAGS].sort()).toEqual([
      'ar',
      'de',
      'en',
      'es',
      'fa',
      'fr',
      'ht',
      'it',
      'ja',
      'ko',
      'pl',
      'pt',
      'ru',
      'tl',
      'vi',
      'zh-Hans',
      'zh-Hant',
    ]);
    expect(Object.keys(CATALOGS).sort()).toEqual([...LOCALE_TAGS].sort());
  });

  it.each(LOCALE_TAGS)('%s has every key, and only those', (tag) => {
    const catalog = CATALOGS[tag];
    expect(Object.keys(catalog).sort()).toEqual([...TEXT_KEYS, 'charactersLeft', 'suggestions', 'errors'].sort());
    expect(Object.keys(catalog.errors).sort()).toEqual([...ERROR_KEYS].sort());
    expect(catalog.suggestions).toHaveLength(CATALOGS.en.suggestions.length);
    for (const [path, text] of texts(catalog)) expect(text.trim(), `${tag} ${path}`).not.toBe('');
  });

  it.each(LOCALE_TAGS)('%s uses exactly the placeholders English uses', (tag) => {
    for (const [path, text] of texts(CATALOGS[tag])) {
      if (path.startsWith('charactersLeft.')) continue;
      expect(placeholders(text), `${tag} ${path}: ${text}`).toEqual(placeholders(english.get(path)!));
    }
    // A plural form may spell its number out ("حرفان", two letters), but the general form always shows it.
    for (const [category, text] of Object.entries(CATALOGS[tag].charactersLeft)) {
      for (const name of placeholders(text)) expect(name, `${tag} charactersLeft.${category}`).toBe('count');
    }
    expect(placeholders(CATALOGS[tag].charactersLeft.other)).toEqual(['count']);
  });

  it.each(LOCALE_TAGS)('%s has a form for each plural category its Intl.PluralRules uses', (tag) => {
    const categories = new Intl.PluralRules(localeInfo(tag).intl).resolvedOptions().pluralCategories;
    expect(Object.keys(CATALOGS[tag].charactersLeft).sort()).toEqual([...categories].sort());
  });

  it.each(others)('%s leaves nothing in English', (tag) => {
    const catalog = texts(CATALOGS[tag]);
    for (const [path, text] of english) {
      // "Message" is French as well as English.
      if (tag === 'fr' && path === 'composerLabel') continue;
      expect(catalog.get(path), `${tag} ${path}`).not.toBe(text);
    }
  });

  it.each(LOCALE_TAGS)('%s passes the parser the panel uses on its page', (tag) => {
    expect(parseCatalog(JSON.parse(JSON.stringify(CATALOGS[tag])))).toEqual(CATALOGS[tag]);
  });
});

describe('parseCatalog', () => {
  const valid = () => JSON.parse(JSON.stringify(CATALOGS.es)) as Record<string, unknown>;

  it.each([
    ['a missing text', (catalog: Record<string, unknown>) => delete catalog.close],
    ['a text that is not a string', (catalog: Record<string, unknown>) => (catalog.send = 42)],
    ['an empty text', (catalog: Record<string, unknown>) => (catalog.send = '  ')],
    [
      'a missing error',
      (catalog: Record<string, unknown>) => delete (catalog.errors as Record<string, unknown>).network,
    ],
    ['a plural without `other`', (catalog: Record<string, unknown>) => (catalog.charactersLeft = { one: 'x' })],
    ['suggestions that are not strings', (catalog: Record<string, unknown>) => (catalog.suggestions = [1, 2])],
    ['errors as an array', (catalog: Record<string, unknown>) => (catalog.errors = [])],
  ])('refuses %s', (_what, spoil) => {
    const catalog = valid();
    spoil(catalog);
    expect(parseCatalog(catalog)).toBeNull();
  });

  it.each([null, undefined, 'es', [], 42])('refuses %j', (value) => {
    expect(parseCatalog(value)).toBeNull();
  });

  it('drops what it does not know, __proto__ included', () => {
    const catalog = JSON.parse(
      `{"__proto__": {"polluted": true}, "extra": "x", ${JSON.stringify(CATALOGS.de).slice(1)}`,
    );
    const parsed = parseCatalog(catalog) as unknown as Record<string, unknown>;
    expect(parsed).toEqual(CATALOGS.de);
    expect(Object.hasOwn(parsed, 'extra')).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
