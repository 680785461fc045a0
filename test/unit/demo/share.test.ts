import { describe, expect, it } from 'vitest';
import { parseShareFragment, shareFragment } from '../../../demo/share.ts';
import type { Draft } from '../../../demo/draft.ts';

const draft: Draft = {
  clientId: 'smile-dental',
  iconColor: '#b91c1c',
  iconOpacity: 80,
  logoUrl: '',
  botName: 'Dr. Sonrisa ñ',
  active: true,
  domains: 'www.smile-dental.com\n*.smile-dental.test',
  googleTagId: '',
};

const encode = (value: unknown) => `#preview=${Buffer.from(JSON.stringify(value)).toString('base64url')}`;

describe("the share link's fragment", () => {
  it('round-trips the settings and the switches, accents included', () => {
    const view = { device: 'phone', theme: 'dark', locale: 'es', conversation: 'sample' } as const;
    expect(parseShareFragment(shareFragment(draft, view))).toEqual({ draft, view });
  });

  it.each([
    '',
    '#',
    '#other=1',
    '#preview=',
    '#preview=!!!',
    `#preview=${Buffer.from('not json').toString('base64url')}`,
    encode(null),
    encode('text'),
  ])('ignores %j', (hash) => {
    expect(parseShareFragment(hash)).toBeNull();
  });

  it('keeps only well-formed fields, and defaults unknown switches', () => {
    const parsed = parseShareFragment(
      encode({
        botName: 42,
        iconColor: '#123456',
        active: 'yes',
        iconOpacity: 'NaN',
        domains: 'x'.repeat(5000),
        device: 'tv',
        theme: 'dark',
        __proto__x: 1,
      }),
    );
    expect(parsed).toEqual({
      draft: { iconColor: '#123456' },
      view: { device: 'desktop', theme: 'dark', locale: 'en', conversation: 'greeting' },
    });
  });
});
