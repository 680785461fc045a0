import { describe, expect, it } from 'vitest';
import { normalizeDomainEntry, normalizeDomainList } from '../../../src/shared/domains.ts';

describe('normalizeDomainEntry', () => {
  it.each([
    ['www.smile-dental.com', 'www.smile-dental.com'],
    ['Smile-Dental.TEST.', 'smile-dental.test'],
    ['  example.org  ', 'example.org'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['*.smile-dental.test', '*.smile-dental.test'],
    ['*.Smile-Dental.Test.', '*.smile-dental.test'],
    ['localhost', 'localhost'],
    ['127.0.0.1', '127.0.0.1'],
    ['[::1]', '[::1]'],
  ])('keeps %j as %j', (entry, expected) => {
    expect(normalizeDomainEntry(entry)).toBe(expected);
  });

  it.each([
    ['a scheme', 'https://evil.example'],
    ['a path', 'evil.example/path'],
    ['a port', 'example.com:8080'],
    ['credentials', 'user@example.com'],
    ['a bare *', '*'],
    ['a wildcard over a top-level domain', '*.com'],
    ['a wildcard not in the leftmost label', 'foo.*.example.com'],
    ['a trailing wildcard', 'example.*'],
    ['a public IPv4 literal', '203.0.113.7'],
    ['an IPv4 literal in another spelling', '0x7f.0.0.2'],
    ['an IPv6 literal other than loopback', '[2001:db8::1]'],
    ['a single label', 'intranet'],
    ['empty', ''],
    ['whitespace inside', 'smile dental.com'],
    ['an empty label', 'smile..dental.com'],
    ['a query', 'example.com?x=1'],
    ['a CSP separator', 'a.com;script-src'],
    ['a second CSP policy', 'a.com,b.com'],
    ['quotes', "a.com'unsafe-inline'"],
    ['an underscore', 'my_host.example.com'],
    ['a label starting with a hyphen', '-bad.example.com'],
    [
      'a name longer than DNS can carry (254 characters)',
      `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}`,
    ],
    ['a name of ten thousand characters', `${'a.'.repeat(5_000)}example`],
  ])('drops %s', (_why, entry) => {
    expect(normalizeDomainEntry(entry)).toBeNull();
  });

  it('keeps a name of the longest length DNS can carry (253 characters), with a trailing dot or not', () => {
    const longest = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;
    expect(longest).toHaveLength(253);
    expect(normalizeDomainEntry(longest)).toBe(longest);
    expect(normalizeDomainEntry(`${longest}.`)).toBe(longest);
  });
});

describe('every kept entry is safe to write into a CSP header', () => {
  it('holds only letters, digits, hyphens, dots, and a leading *. or the loopback literals', async () => {
    const fc = (await import('fast-check')).default;
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (entry) => {
        const kept = normalizeDomainEntry(entry);
        return kept === null || kept === '[::1]' || /^(\*\.)?[a-z0-9.-]+$/.test(kept);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('normalizeDomainList', () => {
  it('keeps usable entries once, in order', () => {
    expect(
      normalizeDomainList([
        'https://evil.example/path',
        'Smile-Dental.TEST.',
        '*',
        'smile-dental.test',
        '*.smile-dental.test',
      ]),
    ).toEqual(['smile-dental.test', '*.smile-dental.test']);
  });
});
