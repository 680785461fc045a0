// A patient switches the panel's language after the practice resolved the conversation, within the grace: the relay
// writes nothing to the resolved conversation (it answers conversation_resolved, and the service keeps the language it
// had, so nothing moves its updated_at), and the panel takes the switch as ever: it redraws in the new language, keeps
// the history and the "resolved" notice, and shows no error. Real Chromium, loader, relay and simulator; the practice's
// page is www.smile-dental.test and the relay another site, as in the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStrings } from '../../src/frame/i18n.ts';
import { CATALOGS } from '../../src/shared/locales/catalogs.ts';
import { launchEngine, type Engine, type Tab } from './engines/index.ts';
import { serveHostPages, type HostPageServer } from './harness.ts';
import { smileDentalPage } from '../support/host-page.ts';
import { startProduct } from '../support/product.ts';

const WORDS = 'Can I book an appointment?';

let engine: Engine;
let product: Awaited<ReturnType<typeof startProduct>>;
let host: HostPageServer;

const relay = () => `http://chat.vendor-relay.test:${new URL(product.relayUrl).port}`;

beforeAll(async () => {
  [engine, product] = await Promise.all([
    launchEngine(),
    // Every read asks the status, so the panel hears of the resolution at its next read.
    startProduct({ relayHost: 'chat.vendor-relay.test', environment: { STATUS_REFRESH_SECONDS: '0' } }),
  ]);
  host = await serveHostPages({ '/': () => ({ body: smileDentalPage(relay()) }) });
}, 60_000);
afterAll(async () => {
  await Promise.all([engine?.close(), product?.close(), host?.close()]);
});

const texts = (tab: Tab, selector: string) =>
  tab.evaluateInFrame((css) => [...document.querySelectorAll(css)].map((node) => node.textContent ?? ''), selector);

/** The relay's log lines for the language calls: method, status and code, never a handle or a body. */
const languageCalls = () =>
  product.logLines
    .map((line) => JSON.parse(line) as { method?: string; route?: string; status?: number; code?: string })
    .filter((line) => line.method === 'PUT' && line.route === '/v1/conversation/language')
    .map(({ status, code }) => ({ status, code }));

describe('the language switch in a resolved conversation', { timeout: 90_000 }, () => {
  it('the panel redraws in the new language with the history and the notice; the resolved conversation is not written to', async () => {
    const tab = await engine.newTab();
    try {
      await tab.goto(`http://www.smile-dental.test:${host.port}/`);
      await expect
        .poll(
          () => tab.evaluate(() => !!document.querySelector('practice-chat-q7x')?.shadowRoot?.querySelector('button')),
          {
            timeout: 10_000,
          },
        )
        .toBe(true);
      await tab.click({ launcher: true });
      await expect
        .poll(() => tab.evaluateInFrame(() => !!document.querySelector('textarea')), { timeout: 10_000 })
        .toBe(true);
      await tab.click({ css: 'textarea' });
      await tab.type(WORDS);
      await tab.press('Enter');
      await expect.poll(() => texts(tab, '.message.bot .text'), { timeout: 15_000 }).toHaveLength(1);

      const [conversation] = [...product.simulator.store.conversations.values()];
      const resolved = await fetch(`${product.upstream.url}/staff/api/conversations/${conversation!.id}/resolve`, {
        method: 'POST',
      });
      expect(resolved.status).toBe(200);
      const english = createStrings(CATALOGS.en, 'en');
      await expect
        .poll(() => tab.evaluateInFrame(() => document.body.textContent ?? ''), { timeout: 30_000 })
        .toContain(english.resolved);
      const updatedAt = product.simulator.store.conversations.get(conversation!.id)!.updated_at;

      // The patient picks Spanish (the change event the browser fires for a pick: see chosen-language.test.ts).
      await tab.evaluateInFrame(() => {
        const select = document.querySelector<HTMLSelectElement>('select.language')!;
        select.value = 'es';
        select.dispatchEvent(new Event('change', { bubbles: true }));
      });
      await expect.poll(languageCalls, { timeout: 10_000 }).toEqual([{ status: 409, code: 'conversation_resolved' }]);
      expect(product.simulator.store.conversations.get(conversation!.id)).toMatchObject({
        language: 'en',
        status: 'resolved',
        updated_at: updatedAt,
      });

      const spanish = createStrings(CATALOGS.es, 'es');
      await expect.poll(() => tab.evaluateInFrame(() => document.documentElement.lang)).toBe('es');
      const panel = await tab.evaluateInFrame(() => document.body.textContent ?? '');
      expect(panel).toContain(spanish.resolved);
      expect(await texts(tab, '.message.visitor .text')).toEqual([WORDS]);
      expect(await texts(tab, '.message.bot .text')).toHaveLength(1);
      expect(await texts(tab, '[role="alert"]')).toEqual([]);
    } finally {
      await tab.close();
    }
  });
});
