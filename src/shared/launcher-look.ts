// What the loader needs to draw the launcher, computed once by the relay with the shared rules, so the loader ships
// no contrast, clamping or naming code (its size budget is 1,536 bytes brotli). The relay adds it to its
// configuration answer as `launcher`; the frame and the demo page keep reading the plain configuration fields.
import type { WebchatConfiguration } from './configuration.ts';
import { readableTextOn } from './contrast.ts';

export interface LauncherLook {
  /** The practice's accent, a normalised hex colour. */
  background: string;
  /** The glyph colour that reads on it (#111111 or #ffffff). */
  color: string;
  /** 0–1, from the configured percentage. */
  opacity: number;
  /** The launcher's accessible name, per language the loader can choose. */
  label: { en: string; es: string };
}

/** A configuration as the relay answers it to browsers: the normalised fields plus the launcher's look. */
export type ConfigurationAnswer = WebchatConfiguration & { launcher: LauncherLook };

export function launcherLook({ icon_color, icon_opacity, bot_name }: WebchatConfiguration): LauncherLook {
  return {
    background: icon_color,
    color: readableTextOn(icon_color),
    opacity: icon_opacity / 100,
    label: { en: `Chat with ${bot_name}`, es: `Chatear con ${bot_name}` },
  };
}

export const withLauncherLook = (configuration: WebchatConfiguration): ConfigurationAnswer => ({ ...configuration, launcher: launcherLook(configuration) });
