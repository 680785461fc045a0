// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { findOwnScript, type OwnScript, readScriptTag } from '../../../src/loader/script-tag.ts';

const TAG_WANTED = 'paste its script tag once, with a valid data-client-id, outside shadow roots';
const RELAY_WANTED = 'the relay must be an http(s) address';

function script(attributes: Record<string, string>): HTMLScriptElement {
  const element = document.createElement('script');
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  return element;
}

describe('readScriptTag', () => {
  it('reads data-client-id and takes the relay from its own src', () => {
    expect(
      readScriptTag([
        script({ src: 'https://chat.example.com/loader.js', 'data-client-id': 'demo-client', nonce: 'n0nce' }),
      ]),
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
      readScriptTag([
        script({ src: 'https://c.example/loader.js', 'data-client-id': 'x1', 'data-title-alert': value }),
      ]);
    expect(tag('off')).toMatchObject({ alert: false });
    expect(tag('on')).toMatchObject({ alert: true });
    expect(tag('')).toMatchObject({ alert: true });
  });

  it('reads client_id from the src query when there is no data attribute', () => {
    expect(readScriptTag([script({ src: 'https://chat.example.com/loader.js?client_id=smile-dental' })])).toMatchObject(
      {
        clientId: 'smile-dental',
      },
    );
  });

  it('lets data-relay override the relay origin, and reads data-locale', () => {
    expect(
      readScriptTag([
        script({
          src: 'https://cdn.example/loader.js',
          'data-client-id': 'x1',
          'data-relay': 'https://relay.example/any/path',
          'data-locale': 'es',
        }),
      ]),
    ).toMatchObject({ relayOrigin: 'https://relay.example', locale: 'es' });
  });

  it.each([
    ['no tag', undefined, TAG_WANTED],
    ['no client id', [script({ src: 'https://chat.example.com/loader.js' })], TAG_WANTED],
    [
      'a malformed client id',
      [script({ src: 'https://chat.example.com/loader.js', 'data-client-id': '../../etc' })],
      TAG_WANTED,
    ],
    [
      'a non-http relay',
      [
        script({
          src: 'https://chat.example.com/loader.js',
          'data-client-id': 'x1',
          'data-relay': 'javascript:alert(1)',
        }),
      ],
      RELAY_WANTED,
    ],
    [
      'a data-relay that is not a URL',
      [script({ src: 'https://chat.example.com/loader.js', 'data-client-id': 'x1', 'data-relay': 'http://[' })],
      RELAY_WANTED,
    ],
  ] as const)('explains %s', (_why, own, line) => {
    expect(readScriptTag(own as OwnScript)).toBe(line);
  });

  it('ignores a locale that is not a language tag', () => {
    expect(
      readScriptTag([script({ src: 'https://c.example/loader.js', 'data-client-id': 'x1', 'data-locale': '"><img>' })]),
    ).toMatchObject({ locale: '' });
    expect(
      readScriptTag([script({ src: 'https://c.example/loader.js', 'data-client-id': 'x1', 'data-locale': 'es&x=1' })]),
    ).toMatchObject({ locale: '' });
    expect(
      readScriptTag([
        script({ src: 'https://c.example/loader.js', 'data-client-id': 'x1', 'data-locale': 'zh-Hant-TW' }),
      ]),
    ).toMatchObject({ locale: 'zh-Hant-TW' });
  });
});

describe('findOwnScript', () => {
  /** A page parsed from markup: it runs no script, so nothing is fetched and its currentScript is null. */
  const parse = (markup: string) => new DOMParser().parseFromString(markup, 'text/html');
  const RELAY_TAG = '<script src="https://r.example/loader.js" data-client-id="smile-dental" nonce="n0nce"></script>';
  // What a page's markup may hold when the page's CSP blocked it: a tag of the attacker's, left in the DOM.
  const INJECTED =
    '<script src="https://hostile.example/loader.js" data-client-id="x1" data-relay="https://hostile.example"></script>';
  /** Stack traces as each engine writes them, from inside the loader (the innermost frame is its own file). */
  const STACKS = {
    chromium: 'Error\n    at h (https://r.example/loader.js:1:2345)\n    at v (https://r.example/loader.js:1:6789)',
    firefox: 'h@https://r.example/loader.js:1:2345\nv@https://r.example/loader.js:1:6789\n',
    webkit:
      'h@https://r.example/loader.js:1:2345\nv@https://r.example/loader.js:1:6789\nglobal code@https://r.example/loader.js:1:9',
  };

  it("takes document.currentScript when it is a script, and believes that tag's data-relay", () => {
    const page = parse(
      '<script src="https://cdn.example/loader.js" data-client-id="x1" data-relay="https://r.example"></script>',
    );
    const tag = page.querySelector('script')!;
    Object.defineProperty(page, 'currentScript', { value: tag });
    expect(findOwnScript(page)).toEqual([tag]);
    expect(readScriptTag(findOwnScript(page))).toMatchObject({ relayOrigin: 'https://r.example' });
  });

  it.each(Object.entries(STACKS))(
    'without currentScript, takes the one tag, with the relay from where this code was loaded (%s)',
    (_engine, stack) => {
      const page = parse(INJECTED);
      const own = findOwnScript(page, stack);
      expect(own?.[0]).toBe(page.querySelector('script'));
      // Neither the tag's data-relay nor its src decides the relay: the running file's origin does.
      expect(readScriptTag(own)).toMatchObject({ clientId: 'x1', relayOrigin: 'https://r.example' });
    },
  );

  it('keeps the port of the origin this code came from', () => {
    const own = findOwnScript(parse(RELAY_TAG), 'Error\n    at h (http://relay.test:4173/loader.js:1:2)');
    expect(readScriptTag(own)).toMatchObject({ relayOrigin: 'http://relay.test:4173', nonce: 'n0nce' });
  });

  it('refuses, with the line that says what to change, when more than one tag names a client id', () => {
    const page = parse(RELAY_TAG + INJECTED);
    expect(findOwnScript(page, STACKS.chromium)).toBeUndefined();
    expect(readScriptTag(findOwnScript(page, STACKS.chromium))).toBe(TAG_WANTED);
    expect(findOwnScript(parse(INJECTED + RELAY_TAG), STACKS.firefox)).toBeUndefined();
  });

  it('refuses when no tag names a client id (its tag is in a shadow root), or the trace names no URL (eval)', () => {
    expect(
      findOwnScript(parse('<script src="https://r.example/loader.js"></script>'), STACKS.chromium),
    ).toBeUndefined();
    expect(
      findOwnScript(parse(RELAY_TAG), 'Error\n    at eval (eval at <anonymous> (<anonymous>), <anonymous>:1:2)'),
    ).toBeUndefined();
  });

  it('does not take an element that markup named "currentScript" for the script (DOM clobbering)', () => {
    const page = parse(
      `<img name="currentScript" src="https://hostile.example/loader.js" data-client-id="x1" data-relay="https://hostile.example">${RELAY_TAG}`,
    );
    // What a browser's document answers for that markup (happy-dom does not clobber).
    Object.defineProperty(page, 'currentScript', { value: page.querySelector('img') });
    expect(readScriptTag(findOwnScript(page, STACKS.webkit))).toMatchObject({
      clientId: 'smile-dental',
      relayOrigin: 'https://r.example',
    });
  });
});
