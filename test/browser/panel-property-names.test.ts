// The panel build shortens the property names src/frame/model/own-properties.ts lists, on every object. A name that a
// browser object the panel reads also answers to would break the panel in that browser, so the list is checked here
// against the objects of real Chromium, Firefox and WebKit, read from a live page in each (happy-dom's objects are not
// a browser's: they miss properties and carry their own).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PANEL_OWN_PROPERTIES } from '../../src/frame/model/own-properties.ts';
import { launchEngine, type EngineName } from './engines/index.ts';
import { serveHostPages, type HostPageServer } from './harness.ts';

let host: HostPageServer;
beforeAll(async () => {
  host = await serveHostPages({ '/': '<!doctype html><html><body></body></html>' });
});
afterAll(() => host?.close());

/** Runs in the page: every listed name that an object the panel reads (or its prototypes) answers to. */
async function clashesInThisBrowser(names: string[]): Promise<string[]> {
  const element = (tag: string) => document.createElement(tag);
  const textarea = element('textarea');
  const response = new Response('x');
  const objects: unknown[] = [
    window,
    document,
    document.documentElement,
    document.documentElement.dataset,
    location,
    navigator,
    console,
    crypto,
    textarea,
    textarea.style,
    textarea.classList,
    element('div'),
    element('button'),
    element('form'),
    element('input'),
    element('select'),
    element('time'),
    element('img'),
    element('a'),
    element('span'),
    document.createElementNS('http://www.w3.org/2000/svg', 'svg'),
    new Event('visibilitychange'),
    new MessageEvent('message'),
    new KeyboardEvent('keydown'),
    new FocusEvent('focus'),
    new PageTransitionEvent('pageshow'),
    window.sessionStorage,
    response,
    response.headers,
    response.body!.getReader(),
    new Request(location.href),
    new AbortController(),
    new AbortController().signal,
    new TextDecoder(),
    new URL(location.href),
    new URLSearchParams(),
    new Intl.DateTimeFormat(),
    new Intl.PluralRules(),
    new Date(),
    new Error('x'),
    new Uint8Array(1),
    new Map(),
    new Set(),
    [],
    '',
    0,
    Promise.resolve(),
    /x/,
    Math,
    JSON,
    Object,
    Array,
    Number,
    Date,
  ];
  const found = new Set<string>();
  for (const value of objects) {
    for (let object = Object(value); object; object = Object.getPrototypeOf(object)) {
      for (const name of Object.getOwnPropertyNames(object)) if (names.includes(name)) found.add(name);
    }
  }
  return [...found];
}

describe.each<EngineName>(['chromium', 'firefox', 'webkit'])(
  'the names the panel build shortens, in %s',
  { timeout: 60_000 },
  (name) => {
    it('are none that its objects answer to', async () => {
      const engine = await launchEngine(name);
      try {
        const tab = await engine.newTab();
        await tab.goto(`http://www.smile-dental.test:${host.port}/`);
        expect(await tab.evaluate(clashesInThisBrowser, [...PANEL_OWN_PROPERTIES])).toEqual([]);
        await tab.close();
      } finally {
        await engine.close();
      }
    });
  },
);
