// The language-tag shape the loader holds its script tag, its stored pick and the frame's messages to: the same tags
// as the pattern it replaced, which read a run of underscores in exponentially many ways, less the strings that only
// that reading made tags; at most MAX_LANGUAGE_TAG_LENGTH characters; and strings only.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { languageTag, MAX_LANGUAGE_TAG_LENGTH } from '../../../src/shared/language-tag.ts';

/** The replaced pattern, as the reference for which tags are accepted. Run here on short strings only. */
const REPLACED = /^[a-z]{2,3}([-_]\w{2,8})*$/i;

/** A tag by the replaced pattern whose every subtag, split at `-` and `_`, is two to eight characters. */
const acceptedBefore = (text: string) =>
  REPLACED.test(text) &&
  text
    .split(/[-_]/)
    .slice(1)
    .every((subtag) => subtag.length >= 2 && subtag.length <= 8);

/** The hostile pick: a run of underscores that the replaced pattern could split anywhere, and a character none accepts. */
const hostile = (length: number) => `en${'_'.repeat(length - 3)}!`;

describe('languageTag', () => {
  it.each(['fa', 'pt-BR', 'zh_Hant', 'es_419', 'zh-Hant-TW', 'sr-Latn-RS', 'de-CH-1901', 'EN-us'])(
    'keeps %s',
    (tag) => {
      expect(languageTag(tag)).toBe(tag);
    },
  );

  it('accepts the same tags as the pattern it replaced, except subtags that hold a separator or are too short', () => {
    // A small alphabet of both separators, letters, a digit and a stranger, so that runs of separators come up often;
    // short strings, so that the replaced pattern answers at once.
    const text = fc.string({ unit: fc.constantFrom('e', 'N', '0', '_', '-', '!'), maxLength: 18 });
    const tagLike = fc
      .tuple(
        fc.constantFrom('en', 'fil'),
        fc.array(
          fc.tuple(
            fc.constantFrom('-', '_'),
            fc.string({ unit: fc.constantFrom('a', 'Z', '4', '_'), minLength: 1, maxLength: 9 }),
          ),
          { maxLength: 3 },
        ),
      )
      .map(([language, subtags]) => language + subtags.map(([separator, subtag]) => separator + subtag).join(''));
    fc.assert(
      fc.property(fc.oneof(text, tagLike), (value) => {
        expect(languageTag(value)).toBe(acceptedBefore(value) ? value : '');
      }),
      { numRuns: 5000 },
    );
  });

  it(`holds a tag to ${MAX_LANGUAGE_TAG_LENGTH} characters, the room RFC 5646 asks a field for tags to have`, () => {
    const longest = 'abc-defghijk-lmnopqrs-tuvwxyz1-2345';
    expect(longest).toHaveLength(MAX_LANGUAGE_TAG_LENGTH);
    expect(languageTag(longest)).toBe(longest);
    expect(languageTag(`${longest}6`)).toBe('');
  });

  it('refuses the hostile pick, at any length up to the limit and past it', () => {
    for (let length = 4; length <= 2 * MAX_LANGUAGE_TAG_LENGTH + 5; length++)
      expect(languageTag(hostile(length))).toBe('');
  });

  it.each([[['fa']], [[hostile(75)]], [{ toString: () => 'fa' }], [42], [null], [undefined]])(
    'refuses %j: only a string is a tag, however it would read as text',
    (value) => {
      expect(languageTag(value)).toBe('');
    },
  );
});
