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
