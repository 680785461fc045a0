// A hostile language pick in the practice's page: any script of the practice's origin can write, once, what the
// loader keeps as the patient's pick in IndexedDB. A value built to make a backtracking pattern try every way of
// reading a run of underscores froze the page on every later load; now it is refused like any other value that is not
// a language tag, and the launcher shows in the page's language as if there were no pick. The page is
// www.smile-dental.test, with the relay on another site, as in the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHostPages, type HostPageServer } from './harness.ts';
import { launchEngine, type Engine, type Tab } from './engines/index.ts';
import { startProduct } from '../support/product.ts';
import { smileDentalPage } from '../support/host-page.ts';
import { launcherLook } from '../../src/shared/launcher-look.ts';
import type { WebchatConfiguration } from '../../src/shared/configuration.ts';
import type { LocaleTag } from '../../src/shared/locales/locale-list.ts';

/** A run of underscores the replaced pattern could split anywhere, after a language, and a character none accepts. */
const HOSTILE_PICK = `en${'_'.repeat(72)}!`;

let engine: Engine;
let product: Awaited<ReturnType<typeof startProduct>>;
let host: HostPageServer;

const relay = () => `http://chat.vendor-relay.test:${new URL(product.relayUrl).port}`;
const page = (path: string) => `http://www.smile-dental.test:${host.port}${path}`;

// Another script of the practice's site, on a page without the widget: it writes the pick where the loader keeps it
// (database and store 'practice-chat', key 'locale'), then says so in the page's title.
const WRITER = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>writing</title></head><body><script>
const opening = indexedDB.open('practice-chat', 1);
opening.onupgradeneeded = () => opening.result.createObjectStore('practice-chat');
opening.onsuccess = () => {
  const transaction = opening.result.transaction('practice-chat', 'readwrite');
  transaction.objectStore('practice-chat').put(${JSON.stringify(HOSTILE_PICK)}, 'locale');
  transaction.oncomplete = () => {
    opening.result.close();
    document.title = 'written';
  };
};
</script></body></html>`;

beforeAll(async () => {
  [engine, product] = await Promise.all([launchEngine(), startProduct({ relayHost: 'chat.vendor-relay.test' })]);
  host = await serveHostPages({
    '/write-pick': () => ({ body: WRITER }),
    '/': () => ({ body: smileDentalPage(relay()) }),
    '/es': () => ({ body: smileDentalPage(relay(), ' data-locale="es"', 'es') }),
  });
}, 60_000);
afterAll(async () => {
  await Promise.all([engine?.close(), product?.close(), host?.close()]);
});

const labelIn = (tag: LocaleTag) =>
  launcherLook({ bot_name: 'Sunny', icon_color: '#2563eb', icon_opacity: 100 } as WebchatConfiguration, tag).label;

const launcher = (tab: Tab) =>
  tab.evaluate(() => {
    const element = document.querySelector('practice-chat-q7x') as HTMLElement | null;
    return {
      name: element?.shadowRoot?.querySelector('button')?.getAttribute('aria-label') ?? null,
      lang: element?.lang,
    };
  });

/** What the page's storage holds as the pick: the loader refuses it without removing or rewriting it. */
const storedPick = (tab: Tab) =>
  tab.evaluate(
    () =>
      new Promise<unknown>((resolve, reject) => {
        const opening = indexedDB.open('practice-chat', 1);
        opening.onerror = () => reject(opening.error);
        opening.onsuccess = () => {
          const reading = opening.result.transaction('practice-chat').objectStore('practice-chat').get('locale');
          reading.onsuccess = () => {
            opening.result.close();
            resolve(reading.result);
          };
        };
      }),
  );

async function showsIn(tab: Tab, path: string, tag: LocaleTag) {
  await tab.goto(page(path));
  await expect.poll(() => launcher(tab), { timeout: 10_000 }).toEqual({ name: labelIn(tag), lang: tag });
}

describe(`a hostile pick in the practice's storage, in ${process.env.BROWSER_ENGINE ?? 'chromium'}`, {
  timeout: 90_000,
}, () => {
  it('is refused on every load: the launcher shows in the language of the tag, or the default', async () => {
    const tab = await engine.newTab();
    try {
      await tab.goto(page('/write-pick'));
      await expect.poll(() => tab.evaluate(() => document.title), { timeout: 10_000 }).toBe('written');
      expect(await storedPick(tab)).toBe(HOSTILE_PICK);

      await showsIn(tab, '/es', 'es');
      await tab.reload();
      await expect.poll(() => launcher(tab), { timeout: 10_000 }).toEqual({ name: labelIn('es'), lang: 'es' });
      await showsIn(tab, '/', 'en');

      // The panel opens in the page's language too, and the pick is still what the page's script wrote.
      await tab.click({ launcher: true });
      await expect.poll(() => tab.evaluateInFrame(() => document.documentElement.lang), { timeout: 10_000 }).toBe('en');
      expect(await storedPick(tab)).toBe(HOSTILE_PICK);
    } finally {
      await tab.close();
    }
  });
});
