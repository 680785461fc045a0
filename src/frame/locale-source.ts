// Where the panel's words come from: the one catalog the relay wrote into the frame page (the visitor's language),
// or, when the patient picks another language, that language's catalog from the relay. Everything read is parsed:
// a catalog that does not parse is not used.
import { parseCatalog, type Catalog } from '../shared/locales/catalog.ts';
import { isLocaleTag, localeInfo, type LocaleTag } from '../shared/locales/locale-list.ts';

export interface LoadedLocale {
  locale: LocaleTag;
  catalog: Catalog;
}

/** The relay's `{locale, catalog}` (in the page and from GET /v1/locales/TAG), or null. */
export function parseLoadedLocale(value: unknown): LoadedLocale | null {
  const { locale, catalog } = Object(value) as { locale?: unknown; catalog?: unknown };
  const parsed = parseCatalog(catalog);
  return isLocaleTag(locale) && parsed ? { locale, catalog: parsed } : null;
}

/** The catalog the relay wrote into the page (src/relay/frame/frame-page.ts), or null. */
export function inlineLocale(doc: Document): LoadedLocale | null {
  try {
    return parseLoadedLocale(JSON.parse(doc.getElementById('locale')?.textContent ?? ''));
  } catch {
    return null;
  }
}

/** Another language's catalog from the relay; null when it cannot be had (the panel keeps its language). */
export async function fetchLocale(fetchImpl: typeof fetch, tag: LocaleTag): Promise<LoadedLocale | null> {
  try {
    const response = await fetchImpl(`/v1/locales/${tag}`, { credentials: 'omit' });
    const loaded = response.ok ? parseLoadedLocale(await response.json()) : null;
    return loaded?.locale === tag ? loaded : null;
  } catch {
    return null;
  }
}

/** `lang` for fonts, hyphenation and screen readers; `dir` mirrors the whole panel for Arabic and Persian. */
export function applyLocale(doc: Document, tag: LocaleTag): void {
  const { lang, dir } = localeInfo(tag);
  doc.documentElement.lang = lang;
  doc.documentElement.dir = dir;
}

// The patient's own pick, for this tab (the frame's partitioned sessionStorage, beside the handle): the practice's
// next page opens the panel in it. A language is not message text; nothing else about the patient is kept.
const KEY = 'practice-chat:locale';

export function rememberedLocale(storage: Pick<Storage, 'getItem'> | null): LocaleTag | null {
  try {
    const value = storage?.getItem(KEY);
    return isLocaleTag(value) ? value : null;
  } catch {
    return null;
  }
}

export function rememberLocale(storage: Pick<Storage, 'setItem'> | null, tag: LocaleTag): void {
  try {
    storage?.setItem(KEY, tag);
  } catch {
    // Storage full or blocked: the choice lasts as long as this page.
  }
}
