// The panel's words in every language, as the frame builds them from the catalog its page carries. Tests render
// components with these; the panel itself never holds more than one.
import { createStrings, type Strings } from '../../../src/frame/i18n.ts';
import { CATALOGS } from '../../../src/shared/locales/catalogs.ts';
import { LOCALE_TAGS, type LocaleTag } from '../../../src/shared/locales/locale-list.ts';

export const STRINGS = Object.fromEntries(LOCALE_TAGS.map((tag) => [tag, createStrings(CATALOGS[tag], tag)])) as Record<
  LocaleTag,
  Strings
>;
