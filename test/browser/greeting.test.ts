// The panel's greeting and suggestions in real Chromium, through the real loader, relay and simulator: nothing reaches
// the service until the patient picks a suggestion, and then exactly one conversation with exactly one message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Frame, Page } from 'playwright-core';
import { borrowChromium, giveBackChromium, openPage, serveHostPages, type HostPageServer } from './harness.ts';
import { startProduct } from '../support/product.ts';
import { smileDentalPage } from '../support/host-page.ts';

let browser: Browser;
let product: Awaited<ReturnType<typeof startProduct>>;
let host: HostPageServer;

beforeAll(async () => {
  [browser, product] = await Promise.all([borrowChromium(), startProduct()]);
  host = await serveHostPages({
    '/': () => ({
      body: smileDentalPage(product.relayUrl),
    }),
    '/es': () => ({
      body: smileDentalPage(product.relayUrl, ' data-locale="es"', 'es'),
    }),
  });
});
afterAll(async () => {
  await Promise.all([giveBackChromium(browser), product?.close(), host?.close()]);
});

async function openPanel(page: Page, path = '/'): Promise<Frame> {
  await page.goto(`http://www.smile-dental.test:${host.port}${path}`);
  await page.locator('practice-chat-q7x button').click();
  const frameElement = page.locator('practice-chat-q7x iframe');
  await expect.poll(() => frameElement.isVisible(), { timeout: 10_000 }).toBe(true);
  const frame = (await (await frameElement.elementHandle())!.contentFrame())!;
  await frame.locator('textarea').waitFor();
  // Opening moves focus into the composer once the panel has the loader's "open" message. Wait for it, so a test that
  // then focuses a suggestion does not have focus taken back from under it (the race CI once lost).
  await expect.poll(() => frame.evaluate(() => document.activeElement?.tagName)).toBe('TEXTAREA');
  return frame;
}

const conversationsUpstream = () => product.simulator.store.conversations.size;
const visitorTextsUpstream = () =>
  [...product.simulator.store.messages.values()]
    .flat()
    .filter((message) => message.sender === 'visitor')
    .map((message) => message.text);

describe('the greeting in real Chromium', () => {
  it('greets and suggests; a suggestion, picked by keyboard, sends exactly one message in exactly one conversation', async () => {
    const { context, page } = await openPage(browser);
    try {
      const before = conversationsUpstream();
      const frame = await openPanel(page);
      await expect.poll(() => frame.locator('.greeting').innerText()).toMatch(/^Hi, I'm Sunny\. How can I help\?/);
      const suggestions = frame.getByRole('list', { name: 'Suggested questions' }).getByRole('button');
      expect(await suggestions.allInnerTexts()).toEqual([
        'What are your opening hours?',
        "I'd like to book an appointment.",
        'I have a question about insurance or billing.',
        'Talk to a person',
      ]);
      // Opening the panel and reading the greeting creates nothing upstream.
      expect(conversationsUpstream()).toBe(before);

      await suggestions.first().focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => frame.locator('.message.bot').count(), { timeout: 10_000 }).toBeGreaterThan(0);
      expect(await frame.locator('.message.visitor .text').allInnerTexts()).toEqual(['What are your opening hours?']);
      expect(conversationsUpstream()).toBe(before + 1);
      expect(visitorTextsUpstream().filter((text) => text === 'What are your opening hours?')).toHaveLength(1);
      expect(await frame.locator('.suggestions').count()).toBe(0);
      // Focus moved on to the composer, not lost with the button.
      expect(await frame.evaluate(() => document.activeElement?.tagName)).toBe('TEXTAREA');
    } finally {
      await context.close();
    }
  });

  it('greets in Spanish on a Spanish page', async () => {
    const { context, page } = await openPage(browser);
    try {
      const frame = await openPanel(page, '/es');
      await expect
        .poll(() => frame.locator('.greeting').innerText())
        .toMatch(/^Hola, soy Sunny\. ¿En qué puedo ayudarle\?/);
      expect(await frame.getByRole('list', { name: 'Preguntas sugeridas' }).getByRole('button').count()).toBe(4);
    } finally {
      await context.close();
    }
  });
});
