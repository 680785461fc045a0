import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { matchHost } from '../../../src/shared/host-match.ts';

const domains = ['smile-dental.com', '*.smile-dental.test', 'localhost'];

describe('matchHost', () => {
  it.each([
    ['smile-dental.com', 'exact'],
    ['SMILE-DENTAL.COM', 'exact'],
    ['smile-dental.com.', 'exact'],
    ['www.smile-dental.test', 'wildcard'],
    ['a.b.smile-dental.test', 'wildcard'],
    ['localhost', 'exact'],
  ])('allows %s (%s)', (host, how) => {
    expect(matchHost(host, domains)).toMatchObject({ allowed: true, how });
  });

  it.each([
    ['a look-alike that ends with the domain as a label', 'smile-dental.com.evil.example'],
    ['a look-alike that merely ends with the text', 'evilsmile-dental.com'],
    ['www without a wildcard entry (no implicit www)', 'www.smile-dental.com'],
    ['the apex of a wildcard entry', 'smile-dental.test'],
    ['an IP address', '203.0.113.7'],
  ])('refuses %s', (_why, host) => {
    expect(matchHost(host, domains)).toEqual({ allowed: false, why: 'no_entry_matches' });
  });

  it.each([['*'], ['*.'], ['*.com'], ['https://smile-dental.com']])(
    'never lets the malformed entry %s match',
    (entry) => {
      for (const host of ['smile-dental.com', 'www.smile-dental.com', 'com', '*', 'x.com']) {
        expect(matchHost(host, [entry]).allowed).toBe(false);
      }
    },
  );

  it('refuses everything when there are no domains', () => {
    expect(matchHost('smile-dental.com', [])).toEqual({ allowed: false, why: 'no_domains' });
  });

  it('compares IDN hosts in their ASCII form', () => {
    expect(matchHost(new URL('http://bücher.example').hostname, ['xn--bcher-kva.example'])).toMatchObject({
      allowed: true,
    });
  });

  it('never allows a host that is an allowed host with something appended', () => {
    fc.assert(
      fc.property(fc.domain(), fc.domain(), (allowed, suffix) => {
        const result = matchHost(`${allowed}.${suffix}`, [allowed]);
        return !result.allowed || `${allowed}.${suffix}`.toLowerCase() === allowed.toLowerCase();
      }),
    );
  });
});
