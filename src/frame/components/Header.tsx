import { useState } from 'preact/hooks';
import type { Locale, Strings } from '../i18n.ts';
import { LanguageSwitch } from './LanguageSwitch.tsx';

interface HeaderProps {
  botName: string;
  logoUrl: string | null;
  strings: Strings;
  locale: Locale;
  /** Absent: no language switch (the demo's preview sets the language itself). */
  onLanguage?: ((tag: Locale) => Promise<boolean>) | undefined;
  /** The signed logo URL may have expired: the panel asks for the configuration again, once, and answers the new URL. */
  refreshLogo: () => Promise<string | null>;
  onClose: () => void;
}

export function Header({ botName, logoUrl, strings, locale, onLanguage, refreshLogo, onClose }: HeaderProps) {
  const [logo, setLogo] = useState(logoUrl);
  const [refreshed, setRefreshed] = useState(false);

  function onLogoError() {
    if (refreshed) return setLogo(null);
    setRefreshed(true);
    void refreshLogo().then((fresh) => setLogo(fresh !== null && fresh !== logo ? fresh : null));
  }

  return (
    <header class="header">
      {logo ? (
        <img class="avatar" src={logo} alt="" referrerpolicy="no-referrer" onError={onLogoError} />
      ) : (
        <span class="avatar initial" aria-hidden="true">
          {Array.from(botName)[0]?.toUpperCase()}
        </span>
      )}
      <h1 id="chat-title">{strings.panelLabel(botName)}</h1>
      {onLanguage && <LanguageSwitch locale={locale} strings={strings} onLanguage={onLanguage} />}
      <button type="button" class="icon-button" aria-label={strings.close} onClick={onClose}>
        <svg viewBox="0 0 24 24" aria-hidden="true">
          <path d="M6 6l12 12M18 6L6 18" />
        </svg>
      </button>
    </header>
  );
}
