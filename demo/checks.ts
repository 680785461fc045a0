// The checks a practice needs before going live, in plain language.
import type { WebchatConfiguration } from '../src/shared/configuration.ts';
import { AA_CONTRAST, accessibleAccent, contrastRatio, readableTextOn } from '../src/shared/contrast.ts';

export interface Check {
  ok: boolean;
  text: string;
}

/** Below this the launcher is faint on most pages (it is fully opaque on hover and focus). */
export const FAINT_OPACITY = 60;
/** WCAG 2 non-text contrast for the launcher's icon against its background. */
const GLYPH_CONTRAST = 3;

export function configurationChecks(configuration: WebchatConfiguration): Check[] {
  const glyph = readableTextOn(configuration.icon_color);
  const glyphRatio = contrastRatio(configuration.icon_color, glyph);
  const accent = accessibleAccent(configuration.icon_color);
  const textRatio = contrastRatio(configuration.icon_color, accent.text);
  return [
    {
      ok: glyphRatio >= GLYPH_CONTRAST,
      text: `Launcher icon contrast ${glyphRatio.toFixed(1)}:1 (${glyph === '#ffffff' ? 'white' : 'dark'} on ${configuration.icon_color}); at least ${GLYPH_CONTRAST}:1 is needed.`,
    },
    textRatio >= AA_CONTRAST
      ? { ok: true, text: `Text on the accent colour: ${textRatio.toFixed(1)}:1, meets WCAG AA (${AA_CONTRAST}:1).` }
      : {
          ok: false,
          text: `Text on ${configuration.icon_color} only reaches ${textRatio.toFixed(1)}:1, below WCAG AA (${AA_CONTRAST}:1). The chat panel will use ${accent.background} instead.`,
        },
    configuration.icon_opacity < FAINT_OPACITY
      ? { ok: false, text: `At ${configuration.icon_opacity}% opacity the launcher is hard to see; patients may not find the chat.` }
      : { ok: true, text: `Opacity ${configuration.icon_opacity}%: the launcher is easy to see.` },
    configuration.is_active
      ? { ok: true, text: 'Active: the widget shows on the allowed domains.' }
      : { ok: false, text: 'Not active: the widget shows nowhere until it is switched on.' },
  ];
}
