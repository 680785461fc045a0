// The checks a practice needs before going live, in plain language.
import type { WebchatConfiguration } from '../src/shared/configuration.ts';
import { AA_CONTRAST, accessibleAccent, contrastRatio, readableTextOn } from '../src/shared/contrast.ts';
import { launcherLook } from '../src/shared/launcher-look.ts';

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
    opacityCheck(configuration.icon_opacity, Math.round(launcherLook(configuration).opacity * 100)),
    configuration.is_active
      ? { ok: true, text: 'Active: the widget shows on the allowed domains.' }
      : { ok: false, text: 'Not active: the widget shows nowhere until it is switched on.' },
  ];
}

/** The opacity as drawn: the relay raises a faint one to the floor that keeps the icon at 3:1 on any page. */
function opacityCheck(configured: number, drawn: number): Check {
  const raised =
    drawn > configured
      ? ` It is drawn at ${drawn}%, the least that keeps its icon at ${GLYPH_CONTRAST}:1 on any page.`
      : '';
  return drawn < FAINT_OPACITY || drawn > configured
    ? {
        ok: false,
        text: `At ${configured}% opacity the launcher is hard to see; patients may not find the chat.${raised}`,
      }
    : { ok: true, text: `Opacity ${drawn}%: the launcher is easy to see.` };
}
