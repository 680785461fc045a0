// The loader build shortens the property names src/loader/own-properties.ts lists, on every object. A name that a
// browser object the loader reads also answers to would break the loader in that browser, so the list is checked here
// against the objects of real Chromium, Firefox and WebKit, read from a live page in each (happy-dom's objects are not
// a browser's: they miss properties and carry their own).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOADER_OWN_PROPERTIES } from '../../src/loader/own-properties.ts';
import { launchEngine, type EngineName } from './engines/index.ts';
import { serveHostPages, type HostPageServer } from './harness.ts';

let host: HostPageServer;
beforeAll(async () => {
  host = await serveHostPages({ '/': '<!doctype html><html><body></body></html>' });
});
afterAll(() => host?.close());

/** Runs in the page: every listed name that an object the loader reads (or its prototypes) answers to. */
function clashesInThisBrowser(names: string[]): string[] {
  // The dataset entries the loader reads by property (data-client-id it reads with getAttribute: `clientId` is listed).
  const script = document.createElement('script');
  for (const attribute of ['data-relay', 'data-locale', 'data-title-alert']) script.setAttribute(attribute, 'x');
  const element = document.createElement('practice-chat-q7x');
  const iframe = document.createElement('iframe');
  const sheet = new CSSStyleSheet();
  const objects: unknown[] = [
    window,
    document,
    location,
    navigator,
    history,
    console,
    window.visualViewport,
    script,
    script.dataset,
    element,
    element.attachShadow({ mode: 'open' }),
    element.style,
    iframe,
    iframe.style,
    sheet,
    document.createElement('button'),
    document.createElement('span'),
    document.createElement('img'),
    document.createElement('style'),
    document.createElementNS('http://www.w3.org/2000/svg', 'svg'),
    document.createElementNS('http://www.w3.org/2000/svg', 'path'),
    new MessageEvent('message'),
    new Event('pointerenter'),
    new Response('{}'),
    new Request(location.href),
    new Headers(),
    new URL(location.href),
    new URLSearchParams(),
    new Map(),
    new Set(),
    [],
    '',
    0,
    Promise.resolve(),
    /x/,
    new Error('x'),
    Object,
    Array,
    Number,
    JSON,
    Math,
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
  'the names the loader build shortens, in %s',
  { timeout: 60_000 },
  (name) => {
    it('are none that its objects answer to', async () => {
      const engine = await launchEngine(name);
      try {
        const tab = await engine.newTab();
        await tab.goto(`http://www.smile-dental.test:${host.port}/`);
        expect(await tab.evaluate(clashesInThisBrowser, [...LOADER_OWN_PROPERTIES])).toEqual([]);
        await tab.close();
      } finally {
        await engine.close();
      }
    });
  },
);
