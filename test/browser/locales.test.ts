// Every language in real Chromium, through the real loader, relay and simulator, on a phone-sized page (390 px): the
// launcher and the panel speak only that language (no English catalog text left, in words or accessible names),
// axe-core finds nothing, Arabic and Persian are mirrored, a whole conversation works (greeting, a message, a reply,
// asking for a person), and no text overflows its box. Screenshots go to /tmp/locales/<tag>.png (and <tag>-greeting.png)
// for a person to look at.
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, type ExpectStatic, it } from 'vitest';
import type { Browser, Frame, Page } from 'playwright-core';
import { borrowChromium, giveBackChromium, serveHostPages, typeAndSend, type HostPageServer } from './harness.ts';
import { axeViolations } from './axe.ts';
import { startProduct } from '../support/product.ts';
import { createStrings, type Strings } from '../../src/frame/i18n.ts';
import { botReply } from '../../src/simulator/bot.ts';
import { CATALOGS } from '../../src/shared/locales/catalogs.ts';
import { LOCALE_TAGS, localeInfo, type LocaleTag } from '../../src/shared/locales/locale-list.ts';

const SCREENSHOTS = '/tmp/locales';
const BOT = 'Sunny';

/**
 * How each language is asked for: half by the page's data-locale, half by the browser's own language (a region or
 * script the relay must map: zh-TW is Traditional, pt-BR Portuguese, fil Tagalog), the browser then set to English.
 */
const HOW: Record<LocaleTag, { dataLocale?: string; browser: string }> = {
  en: { browser: 'en-US' },
  es: { dataLocale: 'es-MX', browser: 'en-US' },
  'zh-Hans': { browser: 'zh-CN' },
  'zh-Hant': { browser: 'zh-TW' },
  vi: { dataLocale: 'vi', browser: 'en-US' },
  ko: { browser: 'ko-KR' },
  tl: { browser: 'fil-PH' },
  ru: { dataLocale: 'ru', browser: 'en-US' },
  ar: { dataLocale: 'ar', browser: 'en-US' },
  ht: { dataLocale: 'ht', browser: 'en-US' },
  fr: { browser: 'fr-CA' },
  pt: { browser: 'pt-BR' },
  pl: { dataLocale: 'pl-PL', browser: 'en-US' },
  ja: { browser: 'ja-JP' },
  it: { dataLocale: 'it', browser: 'en-US' },
  de: { browser: 'de-DE' },
  fa: { browser: 'fa-IR' },
};

const STRINGS = Object.fromEntries(LOCALE_TAGS.map((tag) => [tag, createStrings(CATALOGS[tag], tag)])) as Record<
  LocaleTag,
  Strings
>;

/** Every text a language's launcher and panel can show, as shown (with the bot's name and 911 filled in). */
function textsOf(tag: LocaleTag): Set<string> {
  const en = STRINGS[tag];
  const texts = new Set<string>();
  const add = (value: unknown) => {
    if (typeof value === 'string') texts.add(value.trim());
    else if (Array.isArray(value)) value.forEach(add);
    else if (typeof value === 'object' && value !== null) Object.values(value).forEach(add);
  };
  add({ ...en, charactersLeft: undefined });
  for (const fill of [en.panelLabel, en.automatedNotice, en.typing, en.agentLabel, en.botLabel, en.greeting])
    texts.add(fill(BOT));
  texts.add(en.newMessageAnnouncement(BOT, '').trim());
  texts.add(en.emergencyNotice());
  for (const count of [0, 1, 2, 5, 200]) texts.add(en.charactersLeft(count));
  for (const kinds of [['card'], ['ssn'], ['card', 'ssn']] as const) texts.add(en.sensitiveBody(kinds));
  // Words every language writes the same way are no sign of English.
  for (const shared of ['', '911', BOT, 'Chat', '·']) texts.delete(shared);
  return texts;
}
const ENGLISH = textsOf('en');

const startOwnProduct = () => startProduct({ simulator: { botReplyDelayMs: 100, agentJoinDelayMs: 300 } });

let browser: Browser;
let product: Awaited<ReturnType<typeof startOwnProduct>>;
let host: HostPageServer;

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  [browser, product] = await Promise.all([borrowChromium(), startOwnProduct()]);
  host = await serveHostPages({
    '/': (request) => {
      const query = new URL(request.url ?? '/', 'http://host').searchParams;
      const dataLocale = query.get('data-locale');
      const attribute = dataLocale ? ` data-locale="${dataLocale.replace(/[^\w-]/g, '')}"` : '';
      // The relay the page's loader comes from: the file's own, or the one a test started for itself (?relay=port).
      const relayPort = query.get('relay')?.replace(/\D/g, '');
      const relay = relayPort ? `http://${new URL(product.relayUrl).hostname}:${relayPort}` : product.relayUrl;
      return {
        body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Smile Dental</title></head><body><main><h1>Smile Dental</h1></main>
<script async src="${relay}/loader.js" data-client-id="smile-dental"${attribute}></script></body></html>`,
      };
    },
  });
});
afterAll(async () => {
  await Promise.all([giveBackChromium(browser), product?.close(), host?.close()]);
});

/** Every text the frame shows or names (text nodes, accessible names, placeholders, titles), but not message bodies,
 *  which are the practice's words, nor the language switch's options, each named in its own language. */
const shownTexts = (frame: Frame) =>
  frame.evaluate(() => {
    const found: string[] = [document.title];
    const skip = (node: Node) => !!node.parentElement?.closest('.message .text, option');
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode())
      if (!skip(node)) found.push(node.textContent ?? '');
    for (const element of document.querySelectorAll('[aria-label], [placeholder], [title], [alt]')) {
      for (const name of ['aria-label', 'placeholder', 'title', 'alt']) {
        const value = element.getAttribute(name);
        if (value !== null) found.push(value);
      }
    }
    return found.map((text) => text.trim()).filter((text) => text !== '');
  });

/** Elements whose text is cut off or spills out of their box (scrolling regions excepted), and page-wide overflow. */
const overflowing = (frame: Frame) =>
  frame.evaluate(() => {
    const found: string[] = [];
    if (document.documentElement.scrollWidth > document.documentElement.clientWidth)
      found.push(`the page is ${document.documentElement.scrollWidth}px wide`);
    for (const element of document.body.querySelectorAll<HTMLElement>('*')) {
      const style = getComputedStyle(element);
      if (
        style.display === 'none' ||
        element.closest('.visually-hidden') ||
        /auto|scroll/.test(style.overflowX + style.overflowY)
      )
        continue;
      if (element.tagName === 'TEXTAREA' || element.tagName === 'OPTION') continue;
      if (element instanceof HTMLSelectElement) {
        // A closed menu cuts its text silently: the chosen option's words must fit beside the arrow (20 px).
        const context = document.createElement('canvas').getContext('2d')!;
        context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        const text = context.measureText(element.selectedOptions[0]?.textContent ?? '').width;
        const room =
          element.clientWidth - parseFloat(style.paddingInlineStart) - parseFloat(style.paddingInlineEnd) - 20;
        if (text > room) found.push(`SELECT shows ${Math.round(text)}px of words in ${Math.round(room)}px`);
        continue;
      }
      const box = element.getBoundingClientRect();
      if (box.right > innerWidth + 0.5 || box.left < -0.5)
        found.push(
          `${element.tagName}.${element.className} reaches ${Math.round(box.left)}–${Math.round(box.right)}px`,
        );
      if (element.scrollWidth > element.clientWidth + 1 && element.clientWidth > 0)
        found.push(
          `${element.tagName}.${element.className} text is ${element.scrollWidth}px in ${element.clientWidth}px`,
        );
    }
    return found;
  });

/** Takes the running test's own expect where tests run side by side: expect.poll needs to know its test. */
async function openPanel(page: Page, expect: ExpectStatic = globalExpect): Promise<Frame> {
  await page.locator('practice-chat-q7x button').click();
  const frameElement = page.locator('practice-chat-q7x iframe');
  const frame = (await (await frameElement.elementHandle())!.contentFrame())!;
  await frame.locator('textarea').waitFor();
  // Shown once its panel was ready, before the panel was told to open (src/loader/frame.ts).
  expect(await frameElement.isVisible()).toBe(true);
  return frame;
}

const globalExpect = expect;

// The languages run side by side, each with a relay and simulator of its own, so that the conversation a test reads
// back from the simulator is its own: a test spends most of its time waiting on the page, the relay and the bot.
describe.concurrent.each(LOCALE_TAGS)('%s in real Chromium at 390 px', (tag) => {
  const strings = STRINGS[tag];
  const { dir, lang } = localeInfo(tag);
  // An English text that is also this language's own word ("Message" in French) is no leftover.
  const own = textsOf(tag);
  const english = (texts: string[]) =>
    tag === 'en' ? [] : texts.filter((text) => ENGLISH.has(text) && !own.has(text));

  it('shows the launcher and the panel in that language only, mirrored if right-to-left, usable and without overflow', async ({
    expect,
  }) => {
    const how = HOW[tag];
    const product = await startOwnProduct();
    const context = await browser.newContext({
      locale: how.browser,
      viewport: { width: 390, height: 844 },
      hasTouch: false,
    });
    const page = await context.newPage();
    try {
      const relayPort = new URL(product.relayUrl).port;
      await page.goto(
        `http://www.smile-dental.test:${host.port}/?relay=${relayPort}${how.dataLocale ? `&data-locale=${how.dataLocale}` : ''}`,
      );
      // The launcher: its name and language, and its corner.
      const launcher = page.locator('practice-chat-q7x');
      const button = launcher.locator('button');
      await button.waitFor();
      expect(await button.getAttribute('aria-label')).toBe(strings.panelLabel(BOT));
      expect([await launcher.getAttribute('lang'), await launcher.getAttribute('dir')]).toEqual([lang, dir]);
      const box = (await button.boundingBox())!;
      expect(dir === 'rtl' ? box.x < 100 : box.x > 390 - 100, `launcher at x=${box.x}`).toBe(true);

      const frame = await openPanel(page, expect);
      expect(english([(await page.locator('practice-chat-q7x iframe').getAttribute('title')) ?? ''])).toEqual([]);
      expect(await page.locator('practice-chat-q7x iframe').getAttribute('title')).toBe(strings.panelLabel(BOT));
      expect(await frame.evaluate(() => [document.documentElement.lang, document.documentElement.dir])).toEqual([
        lang,
        dir,
      ]);

      // The greeting, in this language.
      await expect.poll(() => frame.locator('.greeting .bubble').innerText()).toBe(strings.greeting(BOT));
      expect(await frame.locator('.notice').last().innerText()).toContain(strings.emergencyNotice());
      expect(english(await shownTexts(frame))).toEqual([]);
      expect(await axeViolations(frame)).toEqual([]);
      expect(await overflowing(frame)).toEqual([]);
      await page.screenshot({ path: `${SCREENSHOTS}/${tag}-greeting.png` });

      // Mirrored: the close button is at the start of the inline axis, which is the left for Arabic and Persian.
      const title = (await frame.locator('#chat-title').boundingBox())!;
      const close = (await frame.getByRole('button', { name: strings.close }).boundingBox())!;
      expect(dir === 'rtl' ? close.x < title.x : close.x > title.x).toBe(true);
      expect(await frame.locator('.panel').evaluate((element) => getComputedStyle(element).direction)).toBe(dir);

      // A message, a reply, then a person.
      await typeAndSend(frame, 'Do you take new patients? Ibuprofen 200 mg');
      await expect.poll(() => frame.locator('.message.bot').count(), { timeout: 10_000 }).toBeGreaterThan(0);
      // The service was told the patient's language, and the simulated bot answers in it where it has the words.
      expect([...product.simulator.store.conversations.values()].at(-1)?.language).toBe(tag);
      if (tag === 'es' || tag === 'en') {
        expect(await frame.locator('.message.bot .text').first().innerText()).toBe(
          botReply('Do you take new patients? Ibuprofen 200 mg', tag),
        );
      }
      // The service names its assistant; the panel says, in this language, that it is automated.
      expect(await frame.locator('.message.bot .author').first().innerText()).toContain(
        CATALOGS[tag].botLabel.replace('{name}', '').trim(),
      );
      // The patient's Latin-script words keep their own direction inside a right-to-left panel.
      expect(
        await frame
          .locator('.message.visitor .text')
          .first()
          .evaluate((element) => getComputedStyle(element).direction),
      ).toBe('ltr');
      await frame.getByRole('button', { name: strings.talkToPerson }).click();
      await expect
        .poll(() => frame.locator('.notice').last().innerText(), { timeout: 10_000 })
        .toContain(strings.escalated);
      await expect.poll(() => frame.locator('.message.agent').count(), { timeout: 10_000 }).toBeGreaterThan(0);
      const agent = await frame.locator('.message.agent .author').first().innerText();
      expect(agent).toContain(CATALOGS[tag].agentLabel.replace('{name}', '').trim());

      expect(english(await shownTexts(frame))).toEqual([]);
      expect(english([(await button.getAttribute('aria-label')) ?? ''])).toEqual([]);
      expect(await axeViolations(frame)).toEqual([]);
      expect(await overflowing(frame)).toEqual([]);
      await page.screenshot({ path: `${SCREENSHOTS}/${tag}.png` });
    } finally {
      await Promise.all([context.close(), product.close()]);
    }
    // Several languages at once on two cores, each with two axe-core scans: a limit on the machine, not the product
    // (the project's 30 s was passed on an idle machine with the tests taking 20 to 30 s).
  }, 60_000);
});

describe('the language switch', () => {
  it('redraws the panel in the chosen language, mirrored for Arabic, and keeps the conversation', async () => {
    const context = await browser.newContext({ locale: 'en-US', viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    try {
      await page.goto(`http://www.smile-dental.test:${host.port}/`);
      const frame = await openPanel(page);
      await typeAndSend(frame, 'Hello from the patient');
      await expect.poll(() => frame.locator('.message.bot').count(), { timeout: 10_000 }).toBeGreaterThan(0);
      const messages = await frame.locator('.message .text').allInnerTexts();
      const conversation = [...product.simulator.store.conversations.values()].at(-1)!;
      expect(conversation.language).toBe('en');

      await frame.getByRole('combobox', { name: STRINGS.en.languageLabel }).selectOption('ar');
      await expect.poll(() => frame.evaluate(() => document.documentElement.dir)).toBe('rtl');
      // The service hears the switch.
      await expect.poll(() => conversation.language).toBe('ar');
      expect(await frame.locator('#chat-title').innerText()).toBe(STRINGS.ar.panelLabel(BOT));
      expect(await frame.getByRole('combobox', { name: STRINGS.ar.languageLabel }).inputValue()).toBe('ar');
      // The same conversation, in the same order: nothing was lost or sent again.
      expect(await frame.locator('.message .text').allInnerTexts()).toEqual(messages);
      expect(english2(await shownTexts(frame))).toEqual([]);
      expect(await axeViolations(frame)).toEqual([]);

      // Another page of the practice in the same tab opens in the patient's pick.
      await page.reload();
      const again = await openPanel(page);
      await expect.poll(() => again.evaluate(() => document.documentElement.lang), { timeout: 10_000 }).toBe('ar');
      await expect.poll(() => again.locator('.message .text').allInnerTexts()).toEqual(messages);
      expect(conversation.language).toBe('ar');
    } finally {
      await context.close();
    }
  });
});

const english2 = (texts: string[]) => texts.filter((text) => ENGLISH.has(text));

describe('the demo page', () => {
  it('previews each language, Arabic mirrored: the launcher in the bottom-left corner and the panel beside it', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    try {
      await page.goto(`${product.relayUrl}/demo/`);
      await page.locator('#icon-color-text').waitFor();
      for (const tag of LOCALE_TAGS)
        expect(await page.getByRole('radio', { name: localeInfo(tag).autonym }).count(), tag).toBe(1);
      await page.getByText(localeInfo('ar').autonym, { exact: true }).click();
      const frame = page.frameLocator('iframe.preview-frame');
      await expect.poll(() => frame.locator('html').getAttribute('dir')).toBe('rtl');
      const botName = await page.locator('#bot-name').inputValue();
      await expect.poll(() => frame.locator('.greeting .bubble').innerText()).toBe(STRINGS.ar.greeting(botName));
      const launcherHost = page.locator('.mock-page practice-chat-q7x');
      expect(await launcherHost.getAttribute('dir')).toBe('rtl');
      expect(await launcherHost.locator('button').getAttribute('aria-label')).toBe(STRINGS.ar.panelLabel(botName));
      const mock = (await page.locator('.mock-page').boundingBox())!;
      const panel = (await page.locator('iframe.preview-frame').boundingBox())!;
      const button = (await launcherHost.locator('button').boundingBox())!;
      expect(panel.x + panel.width / 2).toBeLessThan(mock.x + mock.width / 2);
      expect(button.x + button.width / 2).toBeLessThan(mock.x + mock.width / 2);
      expect(panel.x).toBeGreaterThanOrEqual(mock.x);
    } finally {
      await context.close();
    }
  });
});
