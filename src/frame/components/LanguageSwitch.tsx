import { useState } from 'preact/hooks';
import { isLocaleTag, LOCALE_TAGS, localeInfo, type LocaleTag } from '../../shared/locales/locale-list.ts';
import type { Strings } from '../i18n.ts';

interface LanguageSwitchProps {
  locale: LocaleTag;
  strings: Strings;
  /** Loads the language and redraws the panel in it; false when it could not be loaded. */
  onLanguage: (tag: LocaleTag) => Promise<boolean>;
}

/**
 * The patient's own choice of language. Each language is named in itself (with its own `lang` and `dir`), so a
 * patient finds theirs whatever the panel speaks now. Switching redraws the words only: the conversation stays.
 */
export function LanguageSwitch({ locale, strings, onLanguage }: LanguageSwitchProps) {
  const [failed, setFailed] = useState(false);
  return (
    <>
      <select
        class="language"
        value={locale}
        aria-label={strings.languageLabel}
        onChange={async (event) => {
          const select = event.currentTarget;
          const tag = select.value;
          const ok = isLocaleTag(tag) && (await onLanguage(tag));
          if (!ok) select.value = locale;
          setFailed(!ok);
        }}
      >
        {LOCALE_TAGS.map((tag) => {
          const { autonym, dir, lang } = localeInfo(tag);
          return (
            <option key={tag} value={tag} lang={lang} dir={dir}>
              {autonym}
            </option>
          );
        })}
      </select>
      {failed && (
        <p class="notice trouble language-failed" role="alert">
          {strings.languageFailed}
        </p>
      )}
    </>
  );
}
