import { describe, expect, it } from 'vitest';
import { envelope, parseFrameMessage, parseHostMessage } from '../../../src/shared/protocol.ts';
import { contrastRatio, readableTextOn } from '../../../src/shared/contrast.ts';

describe('protocol', () => {
  it('round-trips every message', () => {
    for (const message of [
      { type: 'ready' },
      { type: 'close' },
      { type: 'unread', count: 3 },
      { type: 'alert', count: 2 },
      { type: 'alert', count: 0 },
      { type: 'language', locale: 'fa' },
      { type: 'language', locale: 'zh-Hant' },
    ] as const) {
      expect(parseFrameMessage(structuredClone(envelope(message)))).toEqual(message);
    }
    for (const message of [{ type: 'open' }, { type: 'close' }] as const) {
      expect(parseHostMessage(structuredClone(envelope(message)))).toEqual(message);
    }
  });

  it.each([
    null,
    'ready',
    { type: 'ready' },
    { tag: 'other/1', type: 'ready' },
    { tag: 'practice-chat/1', type: 'navigate', url: 'javascript:alert(1)' },
    { tag: 'practice-chat/1', type: 'unread', count: -1 },
    { tag: 'practice-chat/1', type: 'unread', count: 1.5 },
    { tag: 'practice-chat/1', type: 'unread', count: '2' },
    { tag: 'practice-chat/1', type: 'alert', count: -1 },
    { tag: 'practice-chat/1', type: 'alert', count: '(1) Your test results' },
    { tag: 'practice-chat/1', type: 'alert', count: 1e6 },
    { tag: 'practice-chat/1', type: 'alert' },
    // Arrays survive structured cloning and equal their one string under ==: the tag and type must be the strings.
    { tag: ['practice-chat/1'], type: 'ready' },
    { tag: 'practice-chat/1', type: ['close'] },
  ])('ignores %j', (data) => {
    expect(parseFrameMessage(data)).toBeNull();
    expect(parseHostMessage(data)).toBeNull();
  });

  it.each([undefined, '', 'fa"><img', 'f', 'fa-', 42, 'en/../x', 'a'.repeat(40)])(
    "refuses a language message whose code is not a language tag (%j): nothing else reaches a URL or the page's storage",
    (locale) => {
      expect(parseFrameMessage(envelope({ type: 'language', locale } as never))).toBeNull();
    },
  );

  it('never lets a host message pass as a frame message beyond its own types', () => {
    expect(parseHostMessage(envelope({ type: 'ready' }))).toBeNull();
    expect(parseFrameMessage(envelope({ type: 'open' }))).toBeNull();
  });
});

describe('contrast', () => {
  it('computes WCAG ratios', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#777', '#fff')).toBeCloseTo(4.48, 2);
  });

  it.each([
    ['#0f766e', '#ffffff'],
    ['#1d4ed8', '#ffffff'],
    ['#fde047', '#111111'],
    ['#ffffff', '#111111'],
    ['#000', '#ffffff'],
  ])('picks readable text on %s', (background, text) => {
    expect(readableTextOn(background)).toBe(text);
  });
});

describe('readableTextOn agrees with comparing both contrast ratios', () => {
  it('for every grey and a spread of colours', async () => {
    const { DARK_TEXT, LIGHT_TEXT } = await import('../../../src/shared/contrast.ts');
    const hex = (n: number) => n.toString(16).padStart(2, '0');
    for (let r = 0; r < 256; r += 15) {
      for (let g = 0; g < 256; g += 15) {
        for (let b = 0; b < 256; b += 51) {
          const colour = `#${hex(r)}${hex(g)}${hex(b)}`;
          const better = contrastRatio(colour, DARK_TEXT) >= contrastRatio(colour, LIGHT_TEXT) ? DARK_TEXT : LIGHT_TEXT;
          const ratioGap = Math.abs(contrastRatio(colour, DARK_TEXT) - contrastRatio(colour, LIGHT_TEXT));
          if (ratioGap > 1e-9) expect(readableTextOn(colour), colour).toBe(better);
        }
      }
    }
  });
});

describe('accessibleAccent', () => {
  it('keeps an accent that already meets AA', async () => {
    const { accessibleAccent } = await import('../../../src/shared/contrast.ts');
    expect(accessibleAccent('#0f766e')).toEqual({ background: '#0f766e', text: '#ffffff' });
  });

  it('adjusts any colour just enough to reach AA', async () => {
    const { accessibleAccent, AA_CONTRAST } = await import('../../../src/shared/contrast.ts');
    const fc = (await import('fast-check')).default;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffff }), (value) => {
        const colour = `#${value.toString(16).padStart(6, '0')}`;
        const { background, text } = accessibleAccent(colour);
        return contrastRatio(background, text) >= AA_CONTRAST;
      }),
    );
    expect(accessibleAccent('#7a7a7a').background).not.toBe('#7a7a7a');
  });
});
