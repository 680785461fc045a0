// Which of our languages a visitor gets: the practice's data-locale when it names one we have, else the first of
// the browser's languages we have (Accept-Language, which browsers build from the same list as
// navigator.languages), else English. Tags are parsed (BCP 47 shape, `_` accepted), never trusted as they come.
import { MAX_LANGUAGE_TAG_LENGTH } from './language-tag.ts';
import { LOCALE_TAGS, type LocaleTag } from './locales/locale-list.ts';

// language[-script][-region][-anything else]; `_` as a separator is common in the wild (es_419, zh_TW).
const TAG = /^([a-z]{2,3})(?:[-_]([a-z]{4}))?(?:[-_]([a-z]{2}|\d{3}))?(?:[-_][a-z\d]{1,8})*$/i;

// Regions that write Chinese in traditional characters when the tag names no script.
const TRADITIONAL_REGIONS = new Set(['tw', 'hk', 'mo']);

// Other codes for a language we have: Filipino is Tagalog's standard form; Western Persian and Dari read Persian;
// `iw`-style legacy codes do not concern our list.
const ALIASES: Record<string, LocaleTag> = { fil: 'tl', pes: 'fa', prs: 'fa', cmn: 'zh-Hans', hat: 'ht' };

/** One tag mapped to a language we have, or null. */
export function matchLocale(tag: string | null | undefined): LocaleTag | null {
  const text = typeof tag === 'string' ? tag.trim() : '';
  // Held to a tag's length before the pattern: a query string or a header can be as long as the server lets it be.
  const parts = text.length <= MAX_LANGUAGE_TAG_LENGTH ? TAG.exec(text) : null;
  if (!parts) return null;
  const language = parts[1]!.toLowerCase();
  const script = parts[2]?.toLowerCase();
  const region = parts[3]?.toLowerCase();
  if (language === 'zh' || language === 'cmn' || language === 'yue') {
    if (script === 'hant') return 'zh-Hant';
    if (script === 'hans') return 'zh-Hans';
    // Cantonese is mostly written in traditional characters.
    return language === 'yue' || (region !== undefined && TRADITIONAL_REGIONS.has(region)) ? 'zh-Hant' : 'zh-Hans';
  }
  if (Object.hasOwn(ALIASES, language)) return ALIASES[language]!;
  return (LOCALE_TAGS as readonly string[]).includes(language) ? (language as LocaleTag) : null;
}

/**
 * The browser's languages from an Accept-Language header, most wanted first (by q, then by order); `*`, q=0 and
 * malformed entries dropped. At most 32 entries are read, so a huge header costs nothing.
 */
export function parseAcceptLanguage(header: string | null | undefined): string[] {
  if (typeof header !== 'string') return [];
  const entries: { tag: string; q: number; index: number }[] = [];
  header
    .split(',')
    .slice(0, 32)
    .forEach((entry, index) => {
      const [tag = '', ...parameters] = entry.split(';').map((part) => part.trim());
      let q = 1;
      for (const parameter of parameters) {
        const value = /^q=([01](?:\.\d{0,3})?)$/i.exec(parameter);
        if (value) q = Number(value[1]);
        else return;
      }
      if (tag !== '*' && q > 0 && q <= 1 && tag.length <= MAX_LANGUAGE_TAG_LENGTH && TAG.test(tag))
        entries.push({ tag, q, index });
    });
  return entries.sort((a, b) => b.q - a.q || a.index - b.index).map((entry) => entry.tag);
}

/** data-locale (or the frame's `locale`) first, then the browser's languages in order, then English. */
export function negotiateLocale(requested: string | null | undefined, browserLanguages: readonly string[]): LocaleTag {
  const asked = matchLocale(requested);
  if (asked) return asked;
  for (const language of browserLanguages) {
    const found = matchLocale(language);
    if (found) return found;
  }
  return 'en';
}
