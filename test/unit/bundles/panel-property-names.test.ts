// The panel build shortens the property names src/frame/model/own-properties.ts lists, on every object (npm test
// builds before it runs). A name that crosses the panel's edge, or that Preact, signals or a browser object answers
// to, would break the panel; one chunk shortened apart from another would give a name two short forms.
import { readdirSync, readFileSync } from 'node:fs';
import { computed, signal } from '@preact/signals';
import { Window } from 'happy-dom';
import { Component, h, options } from 'preact';
import { describe, expect, it } from 'vitest';
import { CATALOGS } from '../../../src/shared/locales/catalogs.ts';
import { PANEL_OWN_PROPERTIES, panelOwnPropertiesPattern } from '../../../src/frame/model/own-properties.ts';
import { frameAssets, readBuilt } from './budgets.ts';

const ownName = panelOwnPropertiesPattern();

/** Every property name an object answers to, its prototypes' included. */
function propertyNames(value: object): string[] {
  const names: string[] = [];
  for (let object: object | null = value; object; object = Object.getPrototypeOf(object))
    names.push(...Object.getOwnPropertyNames(object));
  return names;
}

/** Every key of a nested object (a catalog's sections). */
function keysDeep(value: unknown): string[] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) => [key, ...keysDeep(inner)]);
}

describe('the property names the panel build shortens', () => {
  it('are shortened in the one chunk the panel is: none is left as written', () => {
    const scripts = frameAssets().filter((file) => file.endsWith('.js'));
    expect(scripts).toHaveLength(1);
    const source = readBuilt(scripts[0]!).toString('utf8');
    expect(source).not.toMatch(/import\(/);
    expect(source.match(new RegExp(`\\.(${PANEL_OWN_PROPERTIES.join('|')})\\b`, 'g')) ?? []).toEqual([]);
  });

  it('are no key of any catalog, and no word in the code of the wire, the configuration or the frame protocol', () => {
    const catalogKeys = Object.values(CATALOGS).flatMap(keysDeep);
    expect(catalogKeys.filter((name) => ownName.test(name))).toEqual([]);
    // Everything the panel shares with the relay, the loader and the page is in src/shared (bar the locales' words).
    const shared = new URL('../../../src/shared/', import.meta.url);
    const words = readdirSync(shared, { recursive: true })
      .map(String)
      .filter((file) => file.endsWith('.ts'))
      // Code and strings, not comments: a comment's prose names nothing the panel reads.
      .map((file) => readFileSync(new URL(file, shared), 'utf8').replace(/\/\*[\s\S]*?\*\/|(^|\s)\/\/.*$/gm, ' '))
      .flatMap((code) => code.match(/\w+/g) ?? []);
    expect([...new Set(words.filter((name) => ownName.test(name)))]).toEqual([]);
    // What sessionStorage holds (session/handle-storage.ts) is read back by a later build: not shortened.
    expect(['handle', 'expiresAt'].filter((name) => ownName.test(name))).toEqual([]);
  });

  it('are none that Preact, signals or a browser object the panel reads answers to', () => {
    const win = new Window({ url: 'https://relay.test/frame' });
    const doc = win.document;
    const objects: object[] = [
      signal(0),
      computed(() => 0),
      h('div', null),
      Component.prototype,
      options,
      win,
      doc,
      doc.documentElement.dataset,
      doc.createElement('div'),
      doc.createElement('button'),
      doc.createElement('textarea'),
      doc.createElement('time'),
      doc.createElement('img'),
      new win.Event('visibilitychange'),
      new win.MessageEvent('message'),
      win.sessionStorage,
      new Response(),
      new Headers(),
      new AbortController(),
      new TextDecoder(),
      new ReadableStream().getReader(),
      new URLSearchParams(),
      new Intl.DateTimeFormat(),
      new Date(),
      new Error('x'),
      new Map(),
      new Set(),
      [],
      String.prototype,
      Promise.resolve(),
      Math,
      JSON,
      Object,
      Number,
    ];
    const clashes = objects.flatMap(propertyNames).filter((name) => ownName.test(name));
    expect([...new Set(clashes)]).toEqual([]);
  });
});
