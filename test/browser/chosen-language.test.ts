// The patient's pick of language, in the browser engine of this run (BROWSER_ENGINE: chromium by default, firefox,
// webkit; npm test runs this file in each): once picked in the panel, the launcher's name, language, direction and
// corner and the frame's title follow it, after a reload and on another page of the practice's site, until the patient
// picks again; the practice's page keeps the language code only, and nothing for a visitor who never picked. The page
// is www.smile-dental.test, with the relay on another site, as in the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHostPages, type HostPageServer } from './harness.ts';
import { launchEngine, type Engine, type Tab } from './engines/index.ts';
import { startProduct } from '../support/product.ts';
import { smileDentalPage } from '../support/host-page.ts';
import { launcherLook } from '../../src/shared/launcher-look.ts';
import type { WebchatConfiguration } from '../../src/shared/configuration.ts';
import type { LocaleTag } from '../../src/shared/locales/locale-list.ts';

let engine: Engine;
let product: Awaited<ReturnType<typeof startProduct>>;
let host: HostPageServer;

const relay = () => `http://chat.vendor-relay.test:${new URL(product.relayUrl).port}`;
const page = (path: string) => `http://www.smile-dental.test:${host.port}${path}`;

beforeAll(async () => {
  [engine, product] = await Promise.all([launchEngine(), startProduct({ relayHost: 'chat.vendor-relay.test' })]);
  host = await serveHostPages({
    '/': () => ({ body: smileDentalPage(relay()) }),
    '/services': () => ({ body: smileDentalPage(relay()) }),
    // The practice's Spanish pages name their language on the tag: the patient's own pick still wins there.
    '/es': () => ({ body: smileDentalPage(relay(), ' data-locale="es"', 'es') }),
  });
}, 60_000);
afterAll(async () => {
  await Promise.all([engine?.close(), product?.close(), host?.close()]);
});

/** The launcher's name as the relay words it in `tag` (the smile-dental bot is Sunny). */
const labelIn = (tag: LocaleTag) =>
  launcherLook({ bot_name: 'Sunny', icon_color: '#2563eb', icon_opacity: 100 } as WebchatConfiguration, tag).label;

/** The launcher and the frame as the page shows them: name, language, direction, corner, and the frame's title. */
const launcher = (tab: Tab) =>
  tab.evaluate(() => {
    const element = document.querySelector('practice-chat-q7x') as HTMLElement | null;
    const button = element?.shadowRoot?.querySelector('button');
    const box = button?.getBoundingClientRect();
    return {
      name: button?.getAttribute('aria-label') ?? null,
      lang: element?.lang ?? null,
      dir: element?.dir ?? null,
      corner: !box ? null : box.left < innerWidth / 2 ? 'left' : 'right',
      frameTitle: element?.shadowRoot?.querySelector('iframe')?.title ?? null,
    };
  });

const expected = (tag: LocaleTag, dir: 'ltr' | 'rtl') => ({
  name: labelIn(tag),
  lang: tag,
  dir,
  corner: dir === 'rtl' ? 'left' : 'right',
  frameTitle: labelIn(tag),
});

/**
 * What the widget keeps in the practice's page: its storages, and the contents of each IndexedDB database (store name →
 * key → value). Written as a page script would read it, with nothing of the loader's.
 */
const pageStorage = (tab: Tab) =>
  tab.evaluate(async () => {
    const read = <T>(request: IDBRequest<T>) =>
      new Promise<T>((resolve, reject) => {
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
    const databases: Record<string, Record<string, Record<string, unknown>>> = {};
    for (const { name, version } of await indexedDB.databases()) {
      // A database of version 0 has no stores, and opening it would make it version 1.
      if (!version) {
        databases[name!] = {};
        continue;
      }
      const database = await read(indexedDB.open(name!, version));
      const stores: Record<string, Record<string, unknown>> = {};
      for (const store of Array.from(database.objectStoreNames)) {
        const transaction = database.transaction(store);
        const keys = await read(transaction.objectStore(store).getAllKeys());
        const values = await read(transaction.objectStore(store).getAll());
        stores[store] = Object.fromEntries(keys.map((key, index) => [String(key), values[index]]));
      }
      database.close();
      databases[name!] = stores;
    }
    return { local: { ...localStorage }, session: { ...sessionStorage }, cookie: document.cookie, databases };
  });

/** Loads `path`, opens the panel with a click on the launcher, and checks both in `tag` once the panel shows. */
async function openIn(tab: Tab, path: string, tag: LocaleTag, dir: 'ltr' | 'rtl') {
  await tab.goto(page(path));
  await expect.poll(async () => (await launcher(tab)).name, { timeout: 10_000 }).toBe(labelIn(tag));
  await tab.click({ launcher: true });
  await expect
    .poll(() => tab.evaluateInFrame(() => !!document.querySelector('select.language')), { timeout: 10_000 })
    .toBe(true);
  expect(await launcher(tab)).toEqual(expected(tag, dir));
  expect(await tab.evaluateInFrame(() => document.documentElement.lang)).toBe(tag);
}

/**
 * Picks a language in the panel's switch. The one step not done with real input: a <select>'s option list is drawn
 * by each engine outside the page, where none of the three drivers can click an option the same way; the change
 * event the panel hears is the one the browser fires when the patient picks.
 */
const pick = (tab: Tab, tag: LocaleTag) =>
  tab.evaluateInFrame((value) => {
    const select = document.querySelector<HTMLSelectElement>('select.language')!;
    select.value = value;
    select.dispatchEvent(new Event('change', { bubbles: true }));
  }, tag);

describe(`the patient's language, in ${process.env.BROWSER_ENGINE ?? 'chromium'}`, { timeout: 90_000 }, () => {
  it("before any pick (WebKit's tabs share the page's storage, so this runs first), the tag's data-locale names the language", async () => {
    const tab = await engine.newTab();
    try {
      await openIn(tab, '/es', 'es', 'ltr');
      // A visitor who never picked leaves nothing in the practice's page: the loader's reading makes no database. (WebKit
      // keeps the name of a database whose making was undone, at version 0, with no store and nothing in it.)
      expect(await pageStorage(tab)).toEqual({
        local: {},
        session: {},
        cookie: '',
        databases: process.env.BROWSER_ENGINE === 'webkit' ? { 'practice-chat': {} } : {},
      });
    } finally {
      await tab.close();
    }
  });

  it('follows the pick on the launcher and the frame, after a reload and on later pages, until picked again', async () => {
    const tab = await engine.newTab();
    try {
      await openIn(tab, '/', 'en', 'ltr');
      await pick(tab, 'fa');
      await expect.poll(() => launcher(tab), { timeout: 10_000 }).toEqual(expected('fa', 'rtl'));
      // The page keeps the code, and nothing else of the widget's. (The write follows the launcher's renaming.)
      await expect
        .poll(() => pageStorage(tab), { timeout: 10_000 })
        .toEqual({
          local: {},
          session: {},
          cookie: '',
          databases: { 'practice-chat': { 'practice-chat': { locale: 'fa' } } },
        });

      await tab.reload();
      await openIn(tab, '/', 'fa', 'rtl');
      await openIn(tab, '/services', 'fa', 'rtl');
      await openIn(tab, '/es', 'fa', 'rtl');

      await pick(tab, 'en');
      await expect.poll(() => launcher(tab), { timeout: 10_000 }).toEqual(expected('en', 'ltr'));
      await openIn(tab, '/services', 'en', 'ltr');
    } finally {
      await tab.close();
    }
  });
});
