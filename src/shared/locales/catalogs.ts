// Every catalog, for the relay (which sends each visitor only theirs), the demo page and the tests. The chat panel
// never imports this file: its words arrive in its page (test/unit/bundles checks).
import type { Catalog } from './catalog.ts';
import type { LocaleTag } from './locale-list.ts';
import { ar } from './ar.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { es } from './es.ts';
import { fa } from './fa.ts';
import { fr } from './fr.ts';
import { ht } from './ht.ts';
import { it } from './it.ts';
import { ja } from './ja.ts';
import { ko } from './ko.ts';
import { pl } from './pl.ts';
import { pt } from './pt.ts';
import { ru } from './ru.ts';
import { tl } from './tl.ts';
import { vi } from './vi.ts';
import { zhHans } from './zh-Hans.ts';
import { zhHant } from './zh-Hant.ts';

export const CATALOGS: Record<LocaleTag, Catalog> = {
  en,
  es,
  'zh-Hans': zhHans,
  'zh-Hant': zhHant,
  vi,
  ko,
  tl,
  ru,
  ar,
  ht,
  fr,
  pt,
  pl,
  ja,
  it,
  de,
  fa,
};
