// The upstream call's target, built as a string on the hot paths (http.ts): it must be exactly what the URL parser
// writes for the same base, path template, values and query, whatever the values are, or a call could reach another
// resource than the contract names.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fill, requestTarget } from '../../../src/relay/upstream/http.ts';
import { withoutTrailingSlashes } from '../../../src/relay/upstream/trailing-slashes.ts';

/** The template filled as the relay did before, with a regex. */
const filledByRegex = (template: string, params: Record<string, string>) =>
  template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name]!));

/** What the relay built before: a URL from the base and the filled template, the query set through searchParams. */
function parsedTarget(base: string, template: string, params: Record<string, string>, query: Record<string, unknown>) {
  const url = new URL(withoutTrailingSlashes(base) + filledByRegex(template, params));
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) url.searchParams.set(key, String(value));
  }
  return url.href;
}

const bases = fc.constantFrom(
  'http://127.0.0.1:4010',
  'https://Upstream.Example.COM:443/',
  'http://upstream.test:80/prefix//',
  'https://upstream.test/a%20b/c d',
);
const templates = fc.constantFrom(
  '/api/conversations/{id}/messages/',
  '/api/conversations/{id}/patients/{patient}/',
  '/api/calls/',
);
const value = fc.oneof(
  fc.constantFrom('.', '..', '...', '%2e%2e', '?', '#', '/', ' '),
  fc.string(),
  fc.string({ unit: 'grapheme' }),
);
const queryValue = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined));

describe('requestTarget', () => {
  it('fills a template as the regex did, and names a missing value', () => {
    fc.assert(
      fc.property(templates, value, value, (template, id, patient) => {
        expect(fill(template, { id, patient })).toBe(filledByRegex(template, { id, patient }));
      }),
    );
    expect(() => fill('/api/conversations/{id}/', {})).toThrow('missing path parameter id');
  });

  it('is what the URL parser writes for any base, values and query', () => {
    fc.assert(
      fc.property(
        bases,
        templates,
        value,
        value,
        fc.dictionary(fc.string(), queryValue),
        (base, template, id, patient, query) => {
          const params = { id, patient };
          const built = requestTarget(
            withoutTrailingSlashes(new URL(withoutTrailingSlashes(base)).href),
            template,
            params,
            query,
          );
          expect(String(built)).toBe(parsedTarget(base, template, params, query));
        },
      ),
      { numRuns: 300 },
    );
  });
});
