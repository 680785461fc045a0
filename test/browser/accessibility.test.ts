// What a patient who uses a screen reader or a keyboard meets, in the browser engine of this run (BROWSER_ENGINE:
// chromium by default, firefox, webkit; see engines/): what reaches the live regions after each change, and where
// focus is after each action that removes its own button, with real clicks and key presses on a practice page with
// the relay on another site. npm test runs this file once in each engine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHostPages, type HostPageServer } from './harness.ts';
import { launchEngine, type Engine, type Tab } from './engines/index.ts';
import { startProduct } from '../support/product.ts';
import { CATALOGS } from '../../src/shared/locales/catalogs.ts';
import { contrastRatio } from '../../src/shared/contrast.ts';

let engine: Engine;
let product: Awaited<ReturnType<typeof startProduct>>;
let host: HostPageServer;

const relay = () => `http://chat.vendor-relay.test:${new URL(product.relayUrl).port}`;
const page = (path = '/') => `http://www.smile-dental.test:${host.port}${path}`;
const hostPage = (locale: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Smile Dental</title>
<script>window.pageErrors = []; addEventListener('error', (event) => pageErrors.push(String(event.message))); addEventListener('unhandledrejection', (event) => pageErrors.push(String(event.reason)));</script>
</head><body><main><h1>Smile Dental</h1><a href="/services">Our services</a></main>
<script async src="${relay()}/loader.js" data-client-id="smile-dental" data-locale="${locale}"></script></body></html>`;

beforeAll(async () => {
  [engine, product] = await Promise.all([launchEngine(), startProduct({ relayHost: 'chat.vendor-relay.test' })]);
  host = await serveHostPages({ '/': () => ({ body: hostPage('en') }), '/ar': () => ({ body: hostPage('ar') }) });
}, 60_000);
afterAll(async () => {
  await Promise.all([engine?.close(), product?.close(), host?.close()]);
});

async function withTab(run: (tab: Tab) => Promise<void>, options?: Parameters<Engine['newTab']>[0]) {
  const tab = await engine.newTab(options);
  try {
    await run(tab);
    expect(await tab.evaluate(() => (window as unknown as { pageErrors: string[] }).pageErrors)).toEqual([]);
  } finally {
    await tab.close();
  }
}

/**
 * Every text the frame's live regions held, each time one changed, as `politeness: text`: what a screen reader is
 * given to say. Recorded in the frame by a MutationObserver installed once the panel exists.
 */
async function recordAnnouncements(tab: Tab) {
  await tab.evaluateInFrame(() => {
    const heard: string[] = [];
    (window as unknown as { heard: string[] }).heard = heard;
    new MutationObserver((records) => {
      const changed = new Set<Element>();
      for (const record of records) {
        const node = record.target instanceof Element ? record.target : record.target.parentElement;
        const region = node?.closest('[aria-live]');
        if (region) changed.add(region);
      }
      for (const region of changed)
        if (region.textContent) heard.push(`${region.getAttribute('aria-live')}: ${region.textContent}`);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}
const heard = (tab: Tab) => tab.evaluateInFrame(() => (window as unknown as { heard: string[] }).heard);
/** Status announcements only: the replies' own region ("New message from …") is checked elsewhere. */
const statusHeard = async (tab: Tab) => (await heard(tab)).filter((text) => !/New message from|رسالة جديدة/.test(text));

/** Where focus is in the frame: a tag, with a button's text; "BODY" when focus was lost. */
const focused = (tab: Tab) =>
  tab.evaluateInFrame(() => {
    const active = document.activeElement;
    if (!active || active === document.body) return 'BODY';
    return active.tagName === 'BUTTON' ? `BUTTON ${active.textContent}` : active.tagName;
  });
const messages = (tab: Tab, kind = '') =>
  tab.evaluateInFrame(
    (selector) => [...document.querySelectorAll(selector)].map((node) => node.textContent ?? ''),
    `.message${kind} .text`,
  );
const panelShown = (tab: Tab) =>
  tab.evaluate(() => {
    const frame = document.querySelector('practice-chat-q7x')?.shadowRoot?.querySelector('iframe');
    return !!frame && getComputedStyle(frame).display !== 'none';
  });

async function openPanel(tab: Tab, path = '/') {
  await tab.goto(page(path));
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
  await recordAnnouncements(tab);
}

async function send(tab: Tab, text: string) {
  await tab.click({ css: 'textarea' });
  await tab.type(text);
  await expect.poll(() => tab.evaluateInFrame(() => document.querySelector('textarea')!.value)).toBe(text);
  await tab.press('Enter');
}

describe(`a screen reader's and a keyboard's panel, in ${process.env.BROWSER_ENGINE ?? 'chromium'}`, {
  timeout: 60_000,
}, () => {
  it('Talk to a person: announced once, politely; focus goes on to the composer', async () => {
    await withTab(async (tab) => {
      await openPanel(tab);
      await send(tab, 'I have a question about my bill');
      await expect.poll(async () => (await messages(tab, '.bot')).length, { timeout: 10_000 }).toBeGreaterThan(0);
      await tab.click({ button: 'Talk to a person' });
      await expect.poll(() => statusHeard(tab), { timeout: 10_000 }).toEqual([`polite: ${CATALOGS.en.escalated}`]);
      await expect.poll(() => focused(tab)).toBe('TEXTAREA');
      // A team member's reply later announces itself, not the escalation again.
      await expect
        .poll(() => tab.evaluateInFrame(() => document.querySelector('.message.agent') !== null), { timeout: 15_000 })
        .toBe(true);
      expect(await statusHeard(tab)).toEqual([`polite: ${CATALOGS.en.escalated}`]);
    });
  });

  it('in Arabic, the escalation is announced in Arabic', async () => {
    await withTab(async (tab) => {
      await openPanel(tab, '/ar');
      await tab.click({ button: CATALOGS.ar.talkToPerson });
      await expect.poll(() => statusHeard(tab), { timeout: 10_000 }).toEqual([`polite: ${CATALOGS.ar.escalated}`]);
      await expect.poll(() => focused(tab)).toBe('TEXTAREA');
    });
  });

  it('End chat: announced assertively, focus on Start a new chat; Enter there: focus in the new composer', async () => {
    await withTab(async (tab) => {
      await openPanel(tab);
      await send(tab, 'What are your opening hours?');
      await expect.poll(() => messages(tab, '.visitor'), { timeout: 10_000 }).toContain('What are your opening hours?');
      await tab.click({ button: 'End chat' });
      await expect.poll(() => statusHeard(tab)).toEqual([`assertive: ${CATALOGS.en.ended}`]);
      await expect.poll(() => focused(tab)).toBe(`BUTTON ${CATALOGS.en.newChat}`);
      await tab.press('Enter');
      await expect.poll(() => focused(tab)).toBe('TEXTAREA');
      await tab.type('Hello again');
      expect(await tab.evaluateInFrame(() => document.querySelector('textarea')!.value)).toBe('Hello again');
    });
  });

  it('the sensitive-data warning takes focus to "Edit message"; Escape closes only the warning and keeps the text; Send anyway returns to the composer', async () => {
    await withTab(async (tab) => {
      await openPanel(tab);
      const card = 'my card is 4111 1111 1111 1111';
      await send(tab, card);
      await expect.poll(() => focused(tab)).toBe(`BUTTON ${CATALOGS.en.edit}`);
      await tab.press('Escape');
      await expect.poll(() => tab.evaluateInFrame(() => document.querySelector('.warning') === null)).toBe(true);
      expect(await panelShown(tab)).toBe(true);
      expect(await focused(tab)).toBe('TEXTAREA');
      expect(await tab.evaluateInFrame(() => document.querySelector('textarea')!.value)).toBe(card);
      await tab.press('Enter');
      await expect.poll(() => focused(tab)).toBe(`BUTTON ${CATALOGS.en.edit}`);
      await tab.click({ button: CATALOGS.en.sendAnyway });
      await expect.poll(() => messages(tab, '.visitor'), { timeout: 10_000 }).toContain(card);
      expect(await focused(tab)).toBe('TEXTAREA');
      expect(await messages(tab, '.visitor')).toEqual([card]);
    });
  });

  it('where the panel covers the page (a phone) it is modal: Tab and Shift+Tab stay in it; Escape closes it and focus returns to the launcher', async () => {
    await withTab(
      async (tab) => {
        await openPanel(tab);
        await send(tab, 'What are your opening hours?');
        await expect.poll(async () => (await messages(tab, '.bot')).length, { timeout: 10_000 }).toBeGreaterThan(0);
        const controls = await tab.evaluateInFrame(
          () =>
            document.querySelectorAll(
              '.panel button:not(:disabled), .panel textarea, .panel select, .panel [tabindex="0"]',
            ).length,
        );
        /** Where focus is: in the frame (its element), or the page's element if the page has it. */
        const where = async () => {
          const page = await tab.evaluate(() =>
            document.activeElement === document.querySelector('practice-chat-q7x') &&
            document.querySelector('practice-chat-q7x')!.shadowRoot!.activeElement?.tagName === 'IFRAME'
              ? 'frame'
              : (document.activeElement?.tagName ?? 'none'),
          );
          return page === 'frame' ? `frame ${await focused(tab)}` : `page ${page}`;
        };
        const seen: string[] = [];
        for (let i = 0; i < controls + 2; i++) {
          await tab.press('Tab');
          seen.push(await where());
        }
        for (let i = 0; i < controls + 2; i++) {
          await tab.press('Shift+Tab');
          seen.push(await where());
        }
        expect(seen.filter((place) => !place.startsWith('frame ') || place === 'frame BODY')).toEqual([]);
        expect(
          await tab.evaluateInFrame(() => document.querySelector('[role="dialog"]')!.getAttribute('aria-modal')),
        ).toBe('true');
        await tab.press('Escape');
        await expect.poll(() => panelShown(tab)).toBe(false);
        expect(
          await tab.evaluate(() => document.querySelector('practice-chat-q7x')!.shadowRoot!.activeElement?.tagName),
        ).toBe('BUTTON');
      },
      { width: 390, height: 700 },
    );
  });

  it('in the corner of the page (a desktop) the panel is not marked modal', async () => {
    await withTab(
      async (tab) => {
        await openPanel(tab);
        expect(
          await tab.evaluateInFrame(() => document.querySelector('[role="dialog"]')!.getAttribute('aria-modal')),
        ).not.toBe('true');
      },
      { width: 1024, height: 768 },
    );
  });

  it('the composer placeholder is at least 4.5:1 against its box, in the light and the dark scheme', async () => {
    await withTab(async (tab) => {
      await openPanel(tab);
      for (const theme of ['light', 'dark']) {
        // The demo's switch (data-theme) holds the same colours as the visitor's own setting (frame.css).
        const drawn = await tab.evaluateInFrame((scheme) => {
          document.documentElement.dataset.theme = scheme;
          const field = document.querySelector('textarea')!;
          const placeholder = getComputedStyle(field, '::placeholder');
          const channels = (color: string) => color.match(/[\d.]+/g)!.map(Number);
          const [r, g, b, a = 1] = channels(placeholder.color);
          const [br, bg, bb] = channels(getComputedStyle(field).backgroundColor);
          // What is drawn: the placeholder's colour at its alpha and opacity over the box (Firefox dims it by opacity).
          const alpha = a * Number(placeholder.opacity || 1);
          const hex = (value: number) => Math.round(value).toString(16).padStart(2, '0');
          const mix = (top: number, bottom: number) => hex(top * alpha + bottom * (1 - alpha));
          return { text: `#${mix(r!, br!)}${mix(g!, bg!)}${mix(b!, bb!)}`, box: `#${hex(br!)}${hex(bg!)}${hex(bb!)}` };
        }, theme);
        expect(contrastRatio(drawn.text, drawn.box), `${theme}: ${drawn.text} on ${drawn.box}`).toBeGreaterThanOrEqual(
          4.5,
        );
      }
    });
  });

  it('a message does not claim the panel language: an English reply in the Arabic panel is not marked Arabic', async () => {
    await withTab(async (tab) => {
      await openPanel(tab, '/ar');
      await send(tab, 'What are your opening hours?');
      await expect.poll(async () => (await messages(tab, '.bot')).length, { timeout: 10_000 }).toBeGreaterThan(0);
      const languages = await tab.evaluateInFrame(() =>
        [...document.querySelectorAll('.message .text')].map((node) => ({
          own: node.closest('[lang]')!.getAttribute('lang'),
          page: document.documentElement.lang,
        })),
      );
      expect(languages.length).toBeGreaterThanOrEqual(2);
      for (const language of languages) expect(language).toEqual({ own: '', page: 'ar' });
    });
  });
});
