import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  DEFAULT_BOT_NAME,
  DEFAULT_ICON_COLOR,
  normalizeBotName,
  normalizeConfiguration,
  normalizeGoogleTagId,
  normalizeIconColor,
  normalizeIconOpacity,
  normalizeLogoUrl,
  parseWebchatConfiguration,
} from '../../../src/shared/configuration.ts';

describe('normalizeIconColor', () => {
  it.each(['#abc', '#0f766e', '#0F766E'])('keeps %s', (color) => {
    expect(normalizeIconColor(color)).toBe(color.toLowerCase());
  });
  it.each([
    '',
    'red',
    'red;background:url(https://evil.example/x)',
    'var(--x)',
    '</style>',
    '#12345',
    '#ggg',
    ' #abc;',
    42,
    null,
    '#abcd',
    '#0F766ECC',
    '#1d4ed840',
  ])('replaces %j with the default', (color) => {
    expect(normalizeIconColor(color)).toBe(DEFAULT_ICON_COLOR);
  });
  it('never returns anything but a hex colour', () => {
    fc.assert(fc.property(fc.string(), (text) => /^#[0-9a-f]{3,8}$/.test(normalizeIconColor(text))));
  });
});

describe('normalizeIconOpacity', () => {
  it.each([
    [0, 0],
    [55, 55],
    [100, 100],
    [250, 100],
    [-3, 0],
    [42.6, 43],
    [Number.NaN, 100],
    ['50', 100],
    [null, 100],
  ])('%j becomes %j', (input, expected) => {
    expect(normalizeIconOpacity(input)).toBe(expected);
  });
});

describe('normalizeLogoUrl', () => {
  it('keeps https', () => {
    expect(normalizeLogoUrl('https://cdn.example/logo.png?sig=1', false)).toBe('https://cdn.example/logo.png?sig=1');
  });
  it.each(['javascript:alert(1)', 'data:image/svg+xml,<svg/>', 'http://cdn.example/logo.png', '/logo.png', '', 7])(
    'drops %j',
    (url) => {
      expect(normalizeLogoUrl(url, true)).toBeNull();
    },
  );
  it('keeps http to a loopback host only in development', () => {
    expect(normalizeLogoUrl('http://127.0.0.1:8787/media/logo.svg', true)).toBe('http://127.0.0.1:8787/media/logo.svg');
    expect(normalizeLogoUrl('http://localhost/logo.svg', false)).toBeNull();
  });
});

describe('normalizeBotName', () => {
  it.each([
    ['  Aimee  ', 'Aimee'],
    ['  <img src=x onerror=alert(1)>Aimee  ', 'Aimee'],
    ['Dr.\u0000 Smile\n\nBot', 'Dr. Smile Bot'],
    // fast-check's counterexample: a dropped character between two runs of spaces must not leave two spaces.
    ['Dr. \n > \n Smile', 'Dr. Smile'],
    ['', DEFAULT_BOT_NAME],
    ['   ', DEFAULT_BOT_NAME],
    [null, DEFAULT_BOT_NAME],
  ])('%j becomes %j', (input, expected) => {
    expect(normalizeBotName(input)).toBe(expected);
  });
  it('caps the length', () => {
    expect(normalizeBotName('x'.repeat(500))).toHaveLength(40);
  });
});

describe('normalizeGoogleTagId', () => {
  it.each(['G-ABC123XYZ9', 'GT-P8QR7ST', 'AW-123456789', 'UA-12345678-1'])('keeps %s', (id) => {
    expect(normalizeGoogleTagId(id)).toBe(id);
  });
  it.each(['', 'javascript:alert(1)', 'G-', 'G-abc"><script>', 'GTM-ABC1234'])('drops %j', (id) => {
    expect(normalizeGoogleTagId(id)).toBeNull();
  });
});

describe('parseWebchatConfiguration', () => {
  const good = normalizeConfiguration(
    {
      client_id: 'demo-client',
      is_active: true,
      domains: ['localhost'],
      logo_url: 'https://cdn.example/logo.svg',
      icon_color: '#0f766e',
      icon_opacity: 80,
      bot_name: 'Aimee',
      google_tag_id: '',
    },
    false,
  );

  it('accepts a normalised configuration unchanged', () => {
    expect(parseWebchatConfiguration(JSON.parse(JSON.stringify(good)))).toEqual(good);
  });

  it.each([
    null,
    'x',
    [],
    {},
    { ...good, client_id: '' },
    { ...good, is_active: 'yes' },
    { ...good, domains: 'localhost' },
  ])('refuses a malformed answer %j', (json) => {
    expect(parseWebchatConfiguration(json)).toBeNull();
  });

  it.each([
    ['https://cdn.example/logo.png', true],
    ['http://127.0.0.1:8788/media/logo.svg', true],
    ['http://localhost/logo.svg', true],
    ['http://cdn.example/logo.png', false],
    ['http://127.0.0.1.evil.example/logo.png', false],
    ['javascript:alert(1)', false],
    ['data:image/svg+xml,<svg/>', false],
    ['https:///nohost', false],
  ])('keeps the logo %s in a browser: %s', (logo, kept) => {
    expect(parseWebchatConfiguration({ ...good, logo_url: logo })?.logo_url).toBe(kept ? logo : null);
  });

  it('checks again every value that reaches a style, a URL or a text', () => {
    expect(
      parseWebchatConfiguration({
        ...good,
        icon_color: 'red;x:y',
        icon_opacity: 400,
        logo_url: 'javascript:alert(1)',
        bot_name: '   ',
        google_tag_id: '"><script>',
        domains: ['localhost', 7, null],
      }),
    ).toEqual({
      ...good,
      icon_color: DEFAULT_ICON_COLOR,
      icon_opacity: 100,
      logo_url: null,
      bot_name: DEFAULT_BOT_NAME,
      google_tag_id: null,
      domains: ['localhost'],
    });
  });
});
