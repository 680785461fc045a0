// Counts are written in each language's digits as docs/glossary.md's "Numbers" states: Persian in its own digits,
// Arabic and the rest in 0–9, whatever CLDR version the engine carries.
import { afterEach, describe, expect, it } from 'vitest';
import { createStrings, formatTime } from '../../../src/frame/i18n.ts';
import { CATALOGS } from '../../../src/shared/locales/catalogs.ts';
import { LOCALE_TAGS } from '../../../src/shared/locales/locale-list.ts';

const digitsOf = (text: string) => text.replace(/[^\p{Nd}]/gu, '');

describe('numbers', () => {
  it.each(LOCALE_TAGS.filter((tag) => tag !== 'fa'))('%s writes a count in 0–9', (tag) => {
    expect(digitsOf(createStrings(CATALOGS[tag], tag).charactersLeft(12))).toBe('12');
  });

  it('fa writes a count in Persian digits', () => {
    expect(digitsOf(createStrings(CATALOGS.fa, 'fa').charactersLeft(12))).toBe('۱۲');
  });

  it("ar writes a message's time in 0–9 too, so the panel never mixes two sets of digits", () => {
    expect(formatTime('2026-01-05T10:30:00Z', 'ar')).toMatch(/^[\d:\s\p{L}\u200f\u061c]+$/u);
    expect(digitsOf(formatTime('2026-01-05T10:30:00Z', 'ar'))).toMatch(/^\d+$/);
  });

  describe('made on first use', () => {
    const { PluralRules, NumberFormat } = Intl;
    afterEach(() => Object.assign(Intl, { PluralRules, NumberFormat }));

    // The panel builds its strings on every cold open, before its first render; the count shows only near the
    // message's limit, and a fresh frame's first Intl objects load the language's data.
    it('makes no Intl object until a count is written, then one of each, kept', () => {
      const made = { plural: 0, number: 0 };
      Object.assign(Intl, {
        PluralRules: class extends PluralRules {
          constructor(...args: ConstructorParameters<typeof PluralRules>) {
            super(...args);
            made.plural++;
          }
        },
        NumberFormat: class extends NumberFormat {
          constructor(...args: ConstructorParameters<typeof NumberFormat>) {
            super(...args);
            made.number++;
          }
        },
      });
      const strings = createStrings(CATALOGS.fa, 'fa');
      expect(made).toEqual({ plural: 0, number: 0 });
      expect(digitsOf(strings.charactersLeft(12))).toBe('۱۲');
      expect(digitsOf(strings.charactersLeft(3))).toBe('۳');
      expect(made).toEqual({ plural: 1, number: 1 });
    });
  });
});
