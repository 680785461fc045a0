// WCAG 2 contrast, for choosing text and glyph colours on the practice's accent colour.

export const DARK_TEXT = '#111111';
export const LIGHT_TEXT = '#ffffff';

/** [r, g, b] in 0–255 from a normalised hex colour (#rgb, #rgba, #rrggbb, #rrggbbaa); alpha is ignored. */
export function hexToRgb(hex: string): [number, number, number] {
  let digits = hex.slice(1);
  if (digits.length <= 4) digits = digits.replace(/./g, '$&$&');
  return [0, 2, 4].map((at) => parseInt(digits.slice(at, at + 2), 16)) as [number, number, number];
}

/** Relative luminance, WCAG 2.x definition. */
export function relativeLuminance(hex: string): number {
  const [r, g, b] = hexToRgb(hex).map((channel) => {
    const c = channel / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/**
 * Whichever of dark or light text contrasts more with the background. Dark text wins above the luminance where both
 * contrasts are equal, (L+0.05)/(Ld+0.05) = (1.05)/(L+0.05); solved once here so the loader ships no ratio code.
 */
const EQUAL_CONTRAST_LUMINANCE = Math.sqrt(1.05 * (relativeLuminance(DARK_TEXT) + 0.05)) - 0.05;

export function readableTextOn(background: string): typeof DARK_TEXT | typeof LIGHT_TEXT {
  return relativeLuminance(background) > EQUAL_CONTRAST_LUMINANCE ? DARK_TEXT : LIGHT_TEXT;
}

/** WCAG AA for normal text. */
export const AA_CONTRAST = 4.5;

/**
 * The practice's accent, darkened or lightened just enough that dark or light text on it meets AA. Mid-tones (#7a7a7a
 * reaches 4.40 with dark text and 4.29 with light) reach neither with the raw colour. Answers the colour to paint and the text colour to use on it.
 */
export function accessibleAccent(accent: string): { background: string; text: string } {
  const [r, g, b] = hexToRgb(accent);
  const text = readableTextOn(accent);
  // Move toward black under light text, toward white under dark text, in small steps, until AA holds.
  for (let step = 0; step <= 20; step++) {
    const mix = (channel: number) =>
      Math.round(text === LIGHT_TEXT ? channel * (1 - step / 20) : channel + (255 - channel) * (step / 20));
    const background = `#${[mix(r), mix(g), mix(b)].map((channel) => channel.toString(16).padStart(2, '0')).join('')}`;
    if (contrastRatio(background, text) >= AA_CONTRAST) return { background, text };
  }
  return { background: text === LIGHT_TEXT ? '#000000' : '#ffffff', text };
}

/** WCAG 2 non-text contrast (1.4.11): the launcher's icon against its background. */
export const GRAPHIC_CONTRAST = 3;

/** Page colours a translucent launcher is checked over: black, white, the primaries and their mixes, and greys. */
const pageSamples = () =>
  [...Array(18).keys()]
    .map((step) => [step * 15, step * 15, step * 15])
    .concat([0, 255].flatMap((r) => [0, 255].flatMap((g) => [0, 255].map((b) => [r, g, b]))));

const hex = (rgb: number[]) => `#${rgb.map((channel) => Math.round(channel).toString(16).padStart(2, '0')).join('')}`;
const over = (top: string, page: number[], alpha: number) =>
  hex(hexToRgb(top).map((channel, i) => channel * alpha + page[i]! * (1 - alpha)));

/**
 * The lowest whole-percent opacity at which the launcher's icon (`glyph`) still reaches 3:1 against its background
 * whatever page shows through both: browsers blend a translucent element with what is behind it, which pulls the
 * icon and its background towards the same colour. Checked over black, white, saturated colours and greys.
 */
export function launcherOpacityFloor(background: string, glyph: string): number {
  const pages = pageSamples();
  for (let percent = 0; percent < 100; percent++) {
    const alpha = percent / 100;
    if (
      pages.every((page) => contrastRatio(over(glyph, page, alpha), over(background, page, alpha)) >= GRAPHIC_CONTRAST)
    )
      return percent;
  }
  return 100;
}
