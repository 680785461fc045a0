// The languages the widget speaks: the 15 languages US practices' patients with limited English most often speak
// (after English), Chinese in both scripts. Each is named in its own language for the panel's switch, and carries
// the tag Intl uses for its plurals, numbers and times where that differs (Tagalog is `fil` in CLDR; CLDR has no
// Haitian Creole data, so Haiti's French conventions stand in; Arabic is pinned to Western digits, see
// docs/glossary.md's Numbers, so every engine writes the same digits whatever its CLDR version), and the tag written in
// `lang` attributes where the catalog is one region's language (the Portuguese catalog is Brazilian). The short tag
// stays the catalog's name everywhere else (URLs, storage, negotiation).

export const LOCALE_TAGS = [
  'en',
  'es',
  'zh-Hans',
  'zh-Hant',
  'vi',
  'ko',
  'tl',
  'ru',
  'ar',
  'ht',
  'fr',
  'pt',
  'pl',
  'ja',
  'it',
  'de',
  'fa',
] as const;

export type LocaleTag = (typeof LOCALE_TAGS)[number];

export interface LocaleInfo {
  /** The language's own name, shown in the language switch with `lang` set to the tag. */
  autonym: string;
  dir: 'ltr' | 'rtl';
  /** The tag given to Intl (plurals, numbers, dates and times). */
  intl: string;
  /** The tag for `lang` attributes (fonts, hyphenation, screen readers' voices). */
  lang: string;
}

const ltr = (autonym: string, intl?: string, lang?: string) => ({ autonym, dir: 'ltr', intl, lang }) as const;

const INFO: Record<
  LocaleTag,
  { autonym: string; dir: 'ltr' | 'rtl'; intl?: string | undefined; lang?: string | undefined }
> = {
  en: ltr('English'),
  es: ltr('Español'),
  'zh-Hans': ltr('简体中文'),
  'zh-Hant': ltr('繁體中文'),
  vi: ltr('Tiếng Việt'),
  ko: ltr('한국어'),
  tl: ltr('Tagalog', 'fil'),
  ru: ltr('Русский'),
  ar: { autonym: 'العربية', dir: 'rtl', intl: 'ar-u-nu-latn' },
  ht: ltr('Kreyòl ayisyen', 'fr-HT'),
  fr: ltr('Français'),
  pt: ltr('Português (Brasil)', 'pt-BR', 'pt-BR'),
  pl: ltr('Polski'),
  ja: ltr('日本語'),
  it: ltr('Italiano'),
  de: ltr('Deutsch'),
  fa: { autonym: 'فارسی', dir: 'rtl' },
};

export function localeInfo(tag: LocaleTag): LocaleInfo {
  const info = INFO[tag];
  return { autonym: info.autonym, dir: info.dir, intl: info.intl ?? tag, lang: info.lang ?? tag };
}

export const isLocaleTag = (value: unknown): value is LocaleTag => (LOCALE_TAGS as readonly unknown[]).includes(value);
