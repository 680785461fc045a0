// The shape of a language tag as the widget accepts it from a page, a header or storage (`fa`, `pt-BR`, `zh_Hant`,
// `es_419`): a language of two or three letters, then subtags of two to eight letters or digits, each after `-` or `_`.
// Every reader holds a value to a length first and then to a pattern that cannot backtrack: any script of the practice's
// page can write what the loader reads, and a page that stops answering on each load is the practice's page broken.

/**
 * RFC 5646 §4.4.1 names 35 characters as the least room a field for tags should have: a language, a script, a region
 * and two variants fit in it, and nothing the widget can name comes near it.
 */
export const MAX_LANGUAGE_TAG_LENGTH = 35;

// A subtag's characters exclude both separators, so each separator starts exactly one subtag: one way to read any
// text, whatever it holds.
const LANGUAGE_TAG = /^[a-z]{2,3}(?:[-_][a-z\d]{2,8})*$/i;

/**
 * `value` if it has a language tag's shape, else '': nothing else reaches a URL or storage. A string first: storage and
 * messages hold arrays too, whose length counts items, and a pattern reads an array as the text its items join into.
 */
export const languageTag = (value: unknown): string =>
  typeof value === 'string' && value.length <= MAX_LANGUAGE_TAG_LENGTH && LANGUAGE_TAG.test(value) ? value : '';
