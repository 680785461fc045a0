// What the loader needs to draw the launcher, computed once by the relay with the shared rules, so the loader ships
// no contrast, clamping, naming or language code: every byte of the loader is on every practice's page. The relay adds
// it to its configuration answer as `launcher`, in the visitor's language; the frame and the demo page keep reading
// the plain configuration fields.
import type { WebchatConfiguration } from './configuration.ts';
import { launcherOpacityFloor, readableTextOn } from './contrast.ts';
import { CATALOGS } from './locales/catalogs.ts';
import { fill } from './locales/catalog.ts';
import { localeInfo, type LocaleTag } from './locales/locale-list.ts';

export interface LauncherLook {
  /** The practice's accent, a normalised hex colour. */
  background: string;
  /** The glyph colour that reads on it (#111111 or #ffffff). */
  color: string;
  /** 0–1, from the configured percentage. */
  opacity: number;
  /** The launcher's accessible name (and the frame's title), in the visitor's language. */
  label: string;
  /**
   * The language the relay chose for this visitor, as `lang` attributes write it (`pt-BR` for the Brazilian catalog):
   * the launcher's `lang`, and the frame's `locale`, which the relay negotiates back to the same catalog.
   */
  locale: string;
  /** `rtl` for Arabic and Persian: the launcher sits in the bottom-left corner, its badge on the left. */
  dir: 'ltr' | 'rtl';
}

/** A configuration as the relay answers it to browsers: the normalised fields plus the launcher's look. */
export type ConfigurationAnswer = WebchatConfiguration & { launcher: LauncherLook };

export function launcherLook(
  { icon_color, icon_opacity, bot_name }: WebchatConfiguration,
  locale: LocaleTag = 'en',
): LauncherLook {
  const { dir, lang } = localeInfo(locale);
  // The name is isolated in right-to-left labels, as the panel does (src/frame/i18n.ts).
  const bot = dir === 'rtl' ? `\u2068${bot_name}\u2069` : bot_name;
  const color = readableTextOn(icon_color);
  return {
    background: icon_color,
    color,
    // Never so faint that the icon falls below 3:1 on some page: the practice's opacity, or the floor for its colour.
    opacity: Math.max(icon_opacity, launcherOpacityFloor(icon_color, color)) / 100,
    label: fill(CATALOGS[locale].panelLabel, { bot }),
    locale: lang,
    dir,
  };
}

export const withLauncherLook = (configuration: WebchatConfiguration, locale?: LocaleTag): ConfigurationAnswer => ({
  ...configuration,
  launcher: launcherLook(configuration, locale),
});
