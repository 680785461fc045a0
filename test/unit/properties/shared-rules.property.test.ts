// Property-based tests (fast-check, thousands of runs) of the rules every part relies on: they never throw, normalising
// twice equals normalising once, and no host is ever accepted that is not an allowed host or a subdomain of a
// wildcard entry.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchHost } from '../../../src/shared/host-match.ts';
import { normalizeDomainEntry, normalizeDomainList } from '../../../src/shared/domains.ts';
import {
  BOT_NAME_MAX_LENGTH,
  normalizeBotName,
  normalizeConfiguration,
  normalizeIconColor,
  normalizeIconOpacity,
  normalizeLogoUrl,
  parseWebchatConfiguration,
} from '../../../src/shared/configuration.ts';

const RUNS = { numRuns: 3000 };

// Hosts built from a small alphabet so that generated hosts and entries often share labels: look-alikes, suffixes,
// prefixes and real matches all come up.
const label = fc.oneof(
  fc.constantFrom(
    'www',
    'smile',
    'dental',
    'smile-dental',
    'evil',
    'com',
    'test',
    'example',
    'a',
    'xn--80ak6aa92e',
    'localhost',
  ),
  fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,6}[a-z0-9])?$/),
);
const hostName = fc.array(label, { minLength: 1, maxLength: 4 }).map((labels) => labels.join('.'));
const entry = fc.oneof(
  hostName,
  hostName.map((host) => `*.${host}`),
);
const anyText = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }));
const hostlike = fc.oneof(
  hostName,
  anyText,
  hostName.map((host) => `${host}.`),
  hostName.map((host) => host.toUpperCase()),
);

/** The rule, written out independently: exactly an entry, or a strict subdomain of a wildcard entry's base. */
function allowedByRule(pageHost: string, entries: readonly string[]): boolean {
  const host = pageHost.toLowerCase().replace(/\.$/, '');
  return entries.some((candidate) => {
    if (!candidate.startsWith('*.')) return candidate === host && !host.includes('*');
    const base = candidate.slice(2);
    return base.includes('.') && host.endsWith(`.${base}`) && host.length > base.length + 1;
  });
}

describe('host matcher', () => {
  it('never throws, whatever the host and the entries', () => {
    fc.assert(
      fc.property(anyText, fc.array(anyText, { maxLength: 6 }), (host, entries) => {
        matchHost(host, entries);
      }),
      RUNS,
    );
  });

  it('never accepts a host that is not an allowed host or a subdomain of a wildcard entry', () => {
    fc.assert(
      fc.property(
        hostlike,
        fc.array(fc.oneof(entry, anyText, fc.constantFrom('*', '*.', '*.com', '')), { maxLength: 6 }),
        (host, entries) => {
          const result = matchHost(host, entries);
          if (result.allowed) expect(allowedByRule(host, entries)).toBe(true);
        },
      ),
      RUNS,
    );
  });

  it('accepts every normalised entry itself and every subdomain of a normalised wildcard', () => {
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 5 }), label, (raw, sub) => {
        const entries = normalizeDomainList(raw);
        for (const normalised of entries) {
          if (normalised.startsWith('*.'))
            expect(matchHost(`${sub}.${normalised.slice(2)}`, entries).allowed).toBe(true);
          else expect(matchHost(normalised, entries).allowed).toBe(true);
        }
      }),
      RUNS,
    );
  });
});

describe('domain normaliser', () => {
  it('never throws, and normalising twice equals normalising once', () => {
    fc.assert(
      fc.property(fc.oneof(entry, hostlike, anyText), (raw) => {
        const once = normalizeDomainEntry(raw);
        if (once !== null) expect(normalizeDomainEntry(once)).toBe(once);
      }),
      RUNS,
    );
  });

  it('gives only lower-case ASCII hosts or *. plus a host of two labels: nothing a CSP header or the matcher could misread', () => {
    fc.assert(
      fc.property(fc.oneof(entry, hostlike, anyText), (raw) => {
        const once = normalizeDomainEntry(raw);
        if (once === null) return;
        expect(once).toMatch(/^(?:\*\.[a-z0-9-]+(?:\.[a-z0-9-]+)+|[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[::1\])$/);
      }),
      RUNS,
    );
  });
});

describe('colour, opacity, logo and name rules', () => {
  it('a colour is always a lower-case hex colour, and normalising twice equals once', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), anyText, fc.stringMatching(/^#[0-9a-fA-F]{3,8}$/)), (value) => {
        const color = normalizeIconColor(value);
        expect(color).toMatch(/^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/);
        expect(normalizeIconColor(color)).toBe(color);
      }),
      RUNS,
    );
  });

  it('an opacity is always a whole number from 0 to 100', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.double(), fc.integer()), (value) => {
        const opacity = normalizeIconOpacity(value);
        expect(Number.isInteger(opacity) && opacity >= 0 && opacity <= 100).toBe(true);
        expect(normalizeIconOpacity(opacity)).toBe(opacity);
      }),
      RUNS,
    );
  });

  it('a logo URL is https (or http to loopback in development) or nothing, and normalising twice equals once', () => {
    const urlish = fc.oneof(
      fc.webUrl(),
      anyText,
      fc.constantFrom(
        'javascript:alert(1)',
        'data:image/svg+xml,<svg onload=alert(1)>',
        'JAVASCRIPT:alert(1)',
        ' https://x.example/a.png',
        'http://127.0.0.1:1/logo.svg',
      ),
    );
    fc.assert(
      fc.property(urlish, fc.boolean(), (value, development) => {
        const url = normalizeLogoUrl(value, development);
        if (url === null) return;
        const parsed = new URL(url);
        expect(
          parsed.protocol === 'https:' ||
            (development &&
              parsed.protocol === 'http:' &&
              ['localhost', '127.0.0.1', '[::1]'].includes(parsed.hostname)),
        ).toBe(true);
        expect(normalizeLogoUrl(url, development)).toBe(url);
      }),
      RUNS,
    );
  });

  it('a bot name is non-empty plain text of at most 40 characters, and normalising twice equals once', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), anyText, fc.string({ minLength: 5000, maxLength: 10_000 })), (value) => {
        const name = normalizeBotName(value);
        expect(name.length).toBeGreaterThan(0);
        expect(Array.from(name).length).toBeLessThanOrEqual(BOT_NAME_MAX_LENGTH);
        // biome-ignore lint/suspicious/noControlCharactersInRegex: no control character may survive normalising.
        expect(name).not.toMatch(/[<>\u0000-\u001f\u007f-\u009f]/);
        expect(normalizeBotName(name)).toBe(name);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('configuration parser', () => {
  // Objects with hostile keys at every depth, and values of every type.
  const hostileKey = fc.oneof(
    fc.constantFrom(
      '__proto__',
      'constructor',
      'prototype',
      'client_id',
      'is_active',
      'domains',
      'logo_url',
      'icon_color',
      'icon_opacity',
      'bot_name',
      'google_tag_id',
    ),
    fc.string(),
  );
  const hostileJson = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small' }, fc.jsonValue(), tie('object'), fc.array(tie('value'), { maxLength: 3 })),
    object: fc.dictionary(hostileKey, tie('value'), { maxKeys: 8 }),
  })).value;

  it('never throws, never changes Object.prototype, and gives null or a configuration whose every field is safe', () => {
    fc.assert(
      fc.property(hostileJson, fc.boolean(), (value, viaJson) => {
        // Through JSON.parse as a browser gets it (__proto__ becomes an own key), or as the object itself.
        const input: unknown = viaJson ? JSON.parse(JSON.stringify(value) ?? 'null') : value;
        const parsed = parseWebchatConfiguration(input);
        expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(PROTOTYPE_NAMES);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        if (parsed === null) return;
        expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
        expect(typeof parsed.client_id).toBe('string');
        expect(typeof parsed.is_active).toBe('boolean');
        expect(parsed.domains.every((domain) => typeof domain === 'string')).toBe(true);
        expect(parsed.icon_color).toMatch(/^#[0-9a-f]{3,8}$/);
        expect(
          parsed.logo_url === null ||
            /^(?:https:|http:\/\/(?:localhost|127\.0\.0\.1|\[::1\])[:/])/i.test(parsed.logo_url),
        ).toBe(true);
        expect(parsed.bot_name.length).toBeLessThanOrEqual(BOT_NAME_MAX_LENGTH);
      }),
      RUNS,
    );
  });

  it('a configuration normalised by the relay comes through the browser parser unchanged', () => {
    fc.assert(
      fc.property(
        fc.record({
          client_id: fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
          is_active: fc.anything(),
          domains: fc.array(fc.oneof(entry, anyText, fc.anything()), { maxLength: 5 }),
          logo_url: fc.oneof(fc.webUrl(), fc.anything()),
          icon_color: fc.oneof(fc.stringMatching(/^#[0-9a-fA-F]{6}$/), fc.anything()),
          icon_opacity: fc.anything(),
          bot_name: fc.oneof(anyText, fc.anything()),
          google_tag_id: fc.oneof(fc.constantFrom('G-ABCD1234', ''), fc.anything()),
        }),
        fc.boolean(),
        (raw, development) => {
          const normalised = normalizeConfiguration(raw as Parameters<typeof normalizeConfiguration>[0], development);
          expect(parseWebchatConfiguration(JSON.parse(JSON.stringify(normalised)))).toEqual(normalised);
        },
      ),
      RUNS,
    );
  });
});

const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype).sort();
