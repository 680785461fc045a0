import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchLocale, negotiateLocale, parseAcceptLanguage } from '../../../src/shared/locale-negotiation.ts';
import { LOCALE_TAGS } from '../../../src/shared/locales/locale-list.ts';

describe('matchLocale', () => {
  it.each([
    ['zh-TW', 'zh-Hant'],
    ['zh-HK', 'zh-Hant'],
    ['zh-MO', 'zh-Hant'],
    ['zh-Hant', 'zh-Hant'],
    ['zh-Hant-CN', 'zh-Hant'],
    ['zh_tw', 'zh-Hant'],
    ['yue', 'zh-Hant'],
    ['zh', 'zh-Hans'],
    ['zh-CN', 'zh-Hans'],
    ['zh-SG', 'zh-Hans'],
    ['zh-Hans-HK', 'zh-Hans'],
    ['pt-BR', 'pt'],
    ['pt-PT', 'pt'],
    ['es-419', 'es'],
    ['ES_mx', 'es'],
    ['fil', 'tl'],
    ['fil-PH', 'tl'],
    ['tl', 'tl'],
    ['prs', 'fa'],
    ['fa-IR', 'fa'],
    ['ar-EG', 'ar'],
    ['ht', 'ht'],
    ['fr-CA', 'fr'],
    ['de-AT', 'de'],
    ['  ko-KR  ', 'ko'],
    ['en-US', 'en'],
  ] as const)('%j is %s', (tag, expected) => {
    expect(matchLocale(tag)).toBe(expected);
  });

  it.each(['nl', 'est', 'e', '', 'zh-', 'es-MX-', '-es', 'es mx', 'x-klingon', '<script>', 'english', null, undefined])(
    '%j is none of ours',
    (tag) => {
      expect(matchLocale(tag)).toBeNull();
    },
  );
});

describe('parseAcceptLanguage', () => {
  it('orders by q, then by position, and drops *, q=0 and malformed entries', () => {
    expect(parseAcceptLanguage('fr-CA, fr;q=0.9, en;q=0.8, *;q=0.5')).toEqual(['fr-CA', 'fr', 'en']);
    expect(parseAcceptLanguage('en;q=0.2, ar;q=0.9, zh-TW')).toEqual(['zh-TW', 'ar', 'en']);
    expect(parseAcceptLanguage('es;q=0, de')).toEqual(['de']);
    expect(parseAcceptLanguage('es;q=2, ko;q=abc, <b>, vi')).toEqual(['vi']);
    expect(parseAcceptLanguage('')).toEqual([]);
    expect(parseAcceptLanguage(undefined)).toEqual([]);
  });

  it('reads at most 32 entries', () => {
    expect(parseAcceptLanguage([...Array(40).fill('nl'), 'es'].join(','))).toHaveLength(32);
  });
});

describe('negotiateLocale', () => {
  it.each([
    ['es', [], 'es'],
    ['ar', ['en-US'], 'ar'],
    ['zh-TW', ['en'], 'zh-Hant'],
    [null, ['nl-NL', 'pt-BR', 'en'], 'pt'],
    [null, ['en-US', 'es'], 'en'],
    [null, ['de-CH', 'fr'], 'de'],
    [null, ['nl', 'sv'], 'en'],
    [null, [], 'en'],
    ['', ['vi-VN'], 'vi'],
    ['nl', ['ko'], 'ko'],
    ['nl', [], 'en'],
  ] as const)('data-locale %j and browser languages %j give %s', (requested, languages, expected) => {
    expect(negotiateLocale(requested, languages)).toBe(expected);
  });

  it('always answers one of our locales, whatever it is given', () => {
    fc.assert(
      fc.property(fc.option(fc.string()), fc.array(fc.string()), (requested, languages) => {
        expect(LOCALE_TAGS).toContain(negotiateLocale(requested, languages));
      }),
      { numRuns: 2000 },
    );
  });

  it('gives data-locale precedence whenever it names one of ours', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...LOCALE_TAGS),
        fc.array(fc.constantFrom(...LOCALE_TAGS, 'nl', 'zh-TW', 'pt-BR')),
        (requested, languages) => {
          expect(negotiateLocale(requested, languages)).toBe(requested);
        },
      ),
    );
  });

  it('maps each of our own tags to itself, in any case and with any region', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...LOCALE_TAGS),
        fc.constantFrom('', '-US', '_us', '-419'),
        fc.boolean(),
        (tag, region, upper) => {
          const written = upper ? tag.toUpperCase() : tag;
          expect(matchLocale(written + (tag.startsWith('zh') ? '' : region))).toBe(tag);
        },
      ),
    );
  });

  it('never lets an Accept-Language header of any shape throw', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (header) => {
        for (const tag of parseAcceptLanguage(header)) expect(typeof tag).toBe('string');
      }),
      { numRuns: 2000 },
    );
  });
});
