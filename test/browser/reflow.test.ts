// Reflow at small heights (WCAG 1.4.10): at 400 % zoom (320×256 and 256×320 CSS px) and on a phone held sideways
// (844×390), the conversation keeps at least half the panel's height, the composer stays in view, nothing scrolls
// sideways, and the notice, folded to its instruction (a whole sentence, drawn whole), shows its whole text when
// focused (by Tab, a click or a tap). Measured as drawn, in the browser engine of this run (BROWSER_ENGINE), on a
// practice page with the relay on another site. The panel is whatever size the loader gives it (the corner panel or
// the whole screen): the frame's own CSS must hold either. Every language, with text spacing and the warning open:
// emergency-notice.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHostPages, type HostPageServer } from './harness.ts';
import { launchEngine, type Engine, type Tab } from './engines/index.ts';
import { startProduct } from '../support/product.ts';
import { CATALOGS } from '../../src/shared/locales/catalogs.ts';

let engine: Engine;
let product: Awaited<ReturnType<typeof startProduct>>;
let host: HostPageServer;

const relay = () => `http://chat.vendor-relay.test:${new URL(product.relayUrl).port}`;
const hostPage = (locale: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Smile Dental</title></head><body><main><h1>Smile Dental</h1></main>
<script async src="${relay()}/loader.js" data-client-id="smile-dental" data-locale="${locale}"></script></body></html>`;

beforeAll(async () => {
  [engine, product] = await Promise.all([launchEngine(), startProduct({ relayHost: 'chat.vendor-relay.test' })]);
  host = await serveHostPages({ '/en': () => ({ body: hostPage('en') }), '/ar': () => ({ body: hostPage('ar') }) });
}, 60_000);
afterAll(async () => {
  await Promise.all([engine?.close(), product?.close(), host?.close()]);
});

/** What is drawn: the panel's and the conversation's heights, and whether each control of the composer is in view. */
const measure = async (tab: Tab) => {
  const frame = await tab.evaluate(() => {
    const box = document
      .querySelector('practice-chat-q7x')!
      .shadowRoot!.querySelector('iframe')!
      .getBoundingClientRect();
    return { top: box.top, bottom: box.bottom, pageHeight: innerHeight };
  });
  const inside = await tab.evaluateInFrame(() => {
    const rect = (selector: string) => document.querySelector(selector)!.getBoundingClientRect();
    const inView = (selector: string) => rect(selector).top >= 0 && rect(selector).bottom <= innerHeight + 0.5;
    const panel = document.querySelector('.panel')!;
    return {
      panel: innerHeight,
      conversation: rect('.messages').height,
      composerInView: inView('textarea') && inView('.send'),
      sideways: panel.scrollWidth > panel.clientWidth + 1,
    };
  });
  return { ...inside, frameInPage: frame.top >= 0 && frame.bottom <= frame.pageHeight + 0.5 };
};

// WebKitGTK's window cannot be narrower than about 447 px (engines/driver.ts): the two 400 % zoom sizes are measured
// in Chromium and Firefox; the phone held sideways in all three.
const sizes: [number, number][] =
  process.env.BROWSER_ENGINE === 'webkit'
    ? [[844, 390]]
    : [
        [320, 256],
        [256, 320],
        [844, 390],
      ];

describe(`reflow at small heights, in ${process.env.BROWSER_ENGINE ?? 'chromium'}`, { timeout: 60_000 }, () => {
  for (const locale of ['en', 'ar'] as const)
    for (const [width, height] of sizes)
      it(`${locale} ${width}×${height}: the conversation keeps half the panel, the composer in view`, async () => {
        const strings = CATALOGS[locale];
        const tab = await engine.newTab({ width, height });
        try {
          await tab.goto(`http://www.smile-dental.test:${host.port}/${locale}`);
          await expect
            .poll(
              () =>
                tab.evaluate(() => !!document.querySelector('practice-chat-q7x')?.shadowRoot?.querySelector('button')),
              {
                timeout: 10_000,
              },
            )
            .toBe(true);
          await tab.click({ launcher: true });
          await expect
            .poll(() => tab.evaluateInFrame(() => !!document.querySelector('textarea')), { timeout: 10_000 })
            .toBe(true);
          // A conversation under way: both actions (Talk to a person, End chat) are shown.
          await tab.click({ css: 'textarea' });
          await tab.type(locale === 'en' ? 'What are your opening hours?' : 'ما مواعيد العمل لديكم؟');
          await tab.press('Enter');
          await expect
            .poll(() => tab.evaluateInFrame(() => document.querySelectorAll('.message.bot').length), {
              timeout: 10_000,
            })
            .toBeGreaterThan(0);
          await expect.poll(() => tab.evaluateInFrame(() => document.querySelector('.typing') === null)).toBe(true);

          const drawn = await measure(tab);
          console.info(`${engine.name} ${locale} ${width}×${height}: ${JSON.stringify(drawn)}`);
          expect(drawn, JSON.stringify(drawn)).toMatchObject({
            composerInView: true,
            frameInPage: true,
            sideways: false,
          });
          expect(drawn.conversation, JSON.stringify(drawn)).toBeGreaterThanOrEqual(drawn.panel / 2);

          // The notice shows its instruction, a whole sentence drawn inside its box (never a line cut short), and its
          // whole text to a screen reader; it is a target of 24 px or more in the Tab order, and focus (Tab, a click,
          // a tap) shows it whole.
          const notice = await tab.evaluateInFrame(() => {
            const element = document.querySelector('.notice') as HTMLElement;
            const box = element.getBoundingClientRect();
            const instruction = element.querySelector('.instruction');
            const range = document.createRange();
            if (instruction) range.selectNodeContents(instruction);
            const drawnInside = [...range.getClientRects()].every(
              (rect) =>
                rect.left >= box.left - 0.5 &&
                rect.right <= box.right + 0.5 &&
                rect.top >= box.top - 0.5 &&
                rect.bottom <= box.bottom + 0.5,
            );
            return {
              text: element.textContent,
              instruction: instruction?.textContent?.replace(/[\u2066-\u2069]/g, '') ?? null,
              drawnInside: instruction !== null && drawnInside,
              overflows: element.scrollWidth > element.clientWidth || element.scrollHeight > element.clientHeight,
              height: element.offsetHeight,
              tabIndex: element.tabIndex,
            };
          });
          expect(notice.text).toContain(strings.emergencyNotice.split('{')[0]);
          expect(notice, JSON.stringify(notice)).toMatchObject({
            instruction: strings.emergencyInstruction.replace('{number}', '911'),
            drawnInside: true,
            overflows: false,
            tabIndex: 0,
          });
          expect(notice.height).toBeGreaterThanOrEqual(24);
          // By keyboard: Shift+Tab back from the composer until the notice has focus (a handful of stops).
          await tab.click({ css: 'textarea' });
          for (let step = 0; step < 8; step++) {
            if (await tab.evaluateInFrame(() => document.activeElement?.classList.contains('notice'))) break;
            await tab.press('Shift+Tab');
          }
          expect(await tab.evaluateInFrame(() => document.activeElement?.classList.contains('notice'))).toBe(true);
          // WebKitGTK's window under WebDriver (no window manager) is never the active one: document.hasFocus() is
          // false there, so :focus matches nothing and the notice cannot be seen to open. Everywhere else it must.
          if (await tab.evaluateInFrame(() => document.hasFocus()))
            await expect
              .poll(() => tab.evaluateInFrame(() => (document.querySelector('.notice') as HTMLElement).offsetHeight))
              .toBeGreaterThan(notice.height * 1.5);
          else expect(engine.name).toBe('webkit');
        } finally {
          await tab.close();
        }
      });
});
