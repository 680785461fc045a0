// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { findOwnScript, readScriptTag } from '../../../src/loader/script-tag.ts';

function script(attributes: Record<string, string>): HTMLScriptElement {
  const element = document.createElement('script');
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  return element;
}

describe('readScriptTag', () => {
  it('reads data-client-id and takes the relay from its own src', () => {
    expect(
      readScriptTag(
        script({ src: 'https://chat.example.com/loader.js', 'data-client-id': 'demo-client', nonce: 'n0nce' }),
      ),
    ).toEqual({
      clientId: 'demo-client',
      relayOrigin: 'https://chat.example.com',
      nonce: 'n0nce',
      locale: '',
      alert: true,
    });
  });

  it('turns the title prefix off with data-title-alert="off", and only with that', () => {
    const tag = (value: string) =>
      readScriptTag(script({ src: 'https://c.example/loader.js', 'data-client-id': 'x1', 'data-title-alert': value }));
    expect(tag('off')).toMatchObject({ alert: false });
    expect(tag('on')).toMatchObject({ alert: true });
    expect(tag('')).toMatchObject({ alert: true });
  });

  it('reads client_id from the src query when there is no data attribute', () => {
    expect(readScriptTag(script({ src: 'https://chat.example.com/loader.js?client_id=smile-dental' }))).toMatchObject({
      clientId: 'smile-dental',
    });
  });

  it('lets data-relay override the relay origin, and reads data-locale', () => {
    expect(
      readScriptTag(
        script({
          src: 'https://cdn.example/loader.js',
          'data-client-id': 'x1',
          'data-relay': 'https://relay.example/any/path',
          'data-locale': 'es',
        }),
      ),
    ).toMatchObject({ relayOrigin: 'https://relay.example', locale: 'es' });
  });

  it.each([
    ['no tag', null],
    ['no client id', script({ src: 'https://chat.example.com/loader.js' })],
    ['a malformed client id', script({ src: 'https://chat.example.com/loader.js', 'data-client-id': '../../etc' })],
    [
      'a non-http relay',
      script({
        src: 'https://chat.example.com/loader.js',
        'data-client-id': 'x1',
        'data-relay': 'javascript:alert(1)',
      }),
    ],
  ])('explains %s', (_why, element) => {
    expect(typeof readScriptTag(element)).toBe('string');
  });

  it('ignores a locale that is not a language tag', () => {
    expect(
      readScriptTag(script({ src: 'https://c.example/loader.js', 'data-client-id': 'x1', 'data-locale': '"><img>' })),
    ).toMatchObject({ locale: '' });
    expect(
      readScriptTag(script({ src: 'https://c.example/loader.js', 'data-client-id': 'x1', 'data-locale': 'es&x=1' })),
    ).toMatchObject({ locale: '' });
    expect(
      readScriptTag(
        script({ src: 'https://c.example/loader.js', 'data-client-id': 'x1', 'data-locale': 'zh-Hant-TW' }),
      ),
    ).toMatchObject({ locale: 'zh-Hant-TW' });
  });
});

describe('findOwnScript', () => {
  it('falls back to the last loader script when currentScript is null', () => {
    // A parsed document runs no scripts, so nothing is fetched.
    const page = new DOMParser().parseFromString(
      '<script src="https://a.example/other.js"></script><script src="https://r.example/loader.js" data-client-id="a" id="first"></script>' +
        '<script src="https://r.example/loader.js" data-client-id="b" id="last"></script>' +
        // Another vendor's loader.js, with no client id, is not ours.
        '<script src="https://vendor.example/loader.js" id="vendor"></script>',
      'text/html',
    );
    expect(page.currentScript).toBeNull();
    expect(findOwnScript(page)?.id).toBe('last');
  });
});
