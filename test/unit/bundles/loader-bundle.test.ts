// Guards the built loader (npm test builds before it runs): its size, that it is a classic script, and that nothing
// from the frame, Preact, the relay or the simulator ended up in it.
import { Window } from 'happy-dom';
import { describe, expect, it } from 'vitest';
import { createApi } from '../../../src/loader/api.ts';
import type { ConfigurationAnswer } from '../../../src/shared/launcher-look.ts';
import { envelope } from '../../../src/shared/protocol.ts';
import { LOADER_OWN_PROPERTIES, loaderOwnPropertiesPattern } from '../../../src/loader/own-properties.ts';
import {
  brotliSize,
  builtLoaderFrame,
  LOADER_BROTLI_CEILING,
  LOADER_FRAME_BROTLI_CEILING,
  readBuilt,
} from './budgets.ts';

const loader = readBuilt('loader.js');
const source = loader.toString('utf8');

describe('dist/loader.js', () => {
  it(`is at most ${LOADER_BROTLI_CEILING} bytes brotli`, () => {
    const size = brotliSize(loader);
    console.info(`loader.js: ${loader.length} bytes, ${size} bytes brotli (ceiling ${LOADER_BROTLI_CEILING})`);
    expect(size).toBeLessThanOrEqual(LOADER_BROTLI_CEILING);
  });

  it('is a classic script: no import or export statement, no shared chunk; its one import() is of its second file', () => {
    expect(source).not.toMatch(/(^|[;}\s])import\s*[\w{*"'`]/);
    expect(source).not.toMatch(/(^|[;}\s])export\s*[\w{*]/);
    expect(source).not.toMatch(/import\.meta/);
    // The relay's origin (a variable) and the second file's path: nothing the bundler split off.
    expect(source.match(/import\([^)]*\)/g)).toEqual([`import(e+\`/${builtLoaderFrame()}\`)`]);
    expect(source.trimStart().startsWith('(function')).toBe(true);
  });

  it('writes no string into a script element: nothing a page that enforces Trusted Types would refuse', () => {
    expect(source).not.toMatch(/createElement\(`script`\)|\.src=[^=]|innerHTML|insertAdjacentHTML|document\.write/);
  });

  it.each([
    ['Preact', /__PREACT|preact|createElement\("div"\)|__H|useState/],
    ['signals', /@preact\/signals|_signal|effect\(/],
    ['zod', /ZodError|zod/],
    ['the relay', /hono|createHandleSealer|Idempotency|UPSTREAM_|access_token/],
    ['the simulator', /simulator|demo-password|oauth\/token/],
    ['the frame', /MessagesAfter|typing|Talk to a person|sessionStorage/],
  ])('holds no %s code', (_what, pattern) => {
    expect(source).not.toMatch(pattern);
  });

  it('shortens the property names vite.config.ts lists: none is left in it', () => {
    expect(source.match(new RegExp(`\\.(${LOADER_OWN_PROPERTIES.join('|')})\\b`, 'g')) ?? []).toEqual([]);
  });

  it('has its source map beside it, which it does not name: no browser fetches the map unless asked', () => {
    const map = JSON.parse(readBuilt('loader.js.map').toString('utf8')) as { sources: string[] };
    expect(map.sources).toEqual(expect.arrayContaining([expect.stringMatching(/src\/loader\/boot\.ts$/)]));
    expect(source).not.toMatch(/sourceMappingURL/);
  });
});

describe("the loader's second file (dist/assets/loader-frame-*.js)", () => {
  const path = builtLoaderFrame();
  const frameCode = readBuilt(path);
  const frameSource = frameCode.toString('utf8');

  it(`is at most ${LOADER_FRAME_BROTLI_CEILING} bytes brotli`, () => {
    const size = brotliSize(frameCode);
    console.info(`${path}: ${frameCode.length} bytes, ${size} bytes brotli (ceiling ${LOADER_FRAME_BROTLI_CEILING})`);
    expect(size).toBeLessThanOrEqual(LOADER_FRAME_BROTLI_CEILING);
  });

  it('is a module that touches no global and imports nothing: its one export, the default, is for loader.js', () => {
    expect(frameSource).not.toMatch(/(^|[;}\s])import\s*[\w{*"'`]/);
    expect(frameSource).not.toMatch(/import\(|import\.meta|document\.currentScript|window\.\w+=/);
    expect(frameSource.match(/export\s*\{/g)).toHaveLength(1);
    expect(frameSource.trimEnd()).toMatch(/export\{\w+ as default\};?$/);
  });

  it('is the file loader.js asks for, and holds what loader.js does not', () => {
    expect(source).toContain(`/${path}`);
    // loader.js makes the frame's element, sandboxed, so that its page loads while this file is on its way.
    expect(source).toMatch(/`iframe`,\{sandbox:`allow-scripts /);
    expect(frameSource).not.toMatch(/sandbox|`iframe`\)/);
    expect(frameSource).toMatch(/inert/);
    expect(source).not.toMatch(/inert/);
    // No second copy of the language tag check: loader.js hands this file its own.
    expect(frameSource).not.toMatch(/\{2,8\}/);
  });

  it.each([
    ['Preact', /__PREACT|preact|__H|useState/],
    ['zod', /ZodError|zod/],
    ['the relay', /hono|Idempotency|access_token/],
    ['the panel', /MessagesAfter|typing|Talk to a person|sessionStorage/],
  ])('holds no %s code', (_what, pattern) => {
    expect(frameSource).not.toMatch(pattern);
  });
});

/** Every property name an object answers to, its prototypes' included. */
function propertyNames(value: object): string[] {
  const names: string[] = [];
  for (let object: object | null = value; object; object = Object.getPrototypeOf(object))
    names.push(...Object.getOwnPropertyNames(object));
  return names;
}

// The minifier renames a listed name wherever it appears, on any object: a name that a browser object the loader reads
// also answers to, or one that crosses the loader's edge (the page's API, the relay's JSON, the frame protocol), would
// break the loader. (data-client-id is read with getAttribute, not dataset: `clientId` is listed.)
describe('the property names the loader build shortens', () => {
  const ownName = loaderOwnPropertiesPattern();
  it('are none that a browser object the loader reads answers to', () => {
    const win = new Window({ url: 'https://www.smile-dental.test/' });
    const doc = win.document;
    const script = doc.createElement('script');
    for (const name of ['data-relay', 'data-locale', 'data-title-alert']) script.setAttribute(name, 'x');
    const iframe = doc.createElement('iframe');
    const host = doc.createElement('practice-chat-q7x');
    const browserObjects: object[] = [
      win,
      doc,
      script,
      script.dataset,
      host,
      host.attachShadow({ mode: 'open' }),
      doc.createElement('button'),
      doc.createElement('span'),
      doc.createElement('img'),
      doc.createElement('style'),
      doc.createElementNS('http://www.w3.org/2000/svg', 'svg'),
      iframe,
      iframe.style,
      host.style,
      new win.MutationObserver(() => {}),
      new win.MessageEvent('message'),
      new win.Event('pointerenter'),
      new Map(),
      [],
      Promise.resolve(),
      new Response(),
      new URL('https://x.test'),
      new URLSearchParams(),
      console,
      Object,
      Number,
      Array,
      String.prototype,
    ];
    const clashes = browserObjects.flatMap(propertyNames).filter((name) => ownName.test(name));
    expect([...new Set(clashes)]).toEqual([]);
  });

  it("are none of the page's API, the configuration the relay sends, or the frame protocol", () => {
    const { api } = createApi({ setOpen: () => {}, destroy: () => {} }, () => false);
    const answer: Required<ConfigurationAnswer> = {
      client_id: 'x1',
      is_active: true,
      domains: [],
      logo_url: null,
      icon_color: '#fff',
      icon_opacity: 100,
      bot_name: 'Aimee',
      google_tag_id: null,
      launcher: { background: '#fff', color: '#111', opacity: 1, label: 'Chat', locale: 'en', dir: 'ltr' },
    };
    const crossing = [
      ...Object.keys(api),
      'q',
      ...Object.keys(answer),
      ...Object.keys(answer.launcher),
      ...Object.keys(envelope({ type: 'unread', count: 1 })),
    ];
    expect(crossing.filter((name) => ownName.test(name))).toEqual([]);
  });
});
