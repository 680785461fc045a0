// The chat panel in real Chromium, through the real loader, relay and simulator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Frame, Page } from 'playwright-core';
import { borrowChromium, giveBackChromium, openPage, serveHostPages, type HostPageServer } from './harness.ts';
import { axeViolations } from './axe.ts';
import { startProduct } from '../support/product.ts';
import { smileDentalPage } from '../support/host-page.ts';

let browser: Browser;
let product: Awaited<ReturnType<typeof startProduct>>;
let host: HostPageServer;

beforeAll(async () => {
  [browser, product] = await Promise.all([borrowChromium(), startProduct({ relayHost: 'chat.smile-dental.test' })]);
  host = await serveHostPages({
    '/': () => ({
      body: smileDentalPage(relaySameSite()),
    }),
  });
});
afterAll(async () => {
  await Promise.all([giveBackChromium(browser), product?.close(), host?.close()]);
});

const PAGE = () => `http://www.smile-dental.test:${host.port}/`;
/**
 * The relay under the practice's own site (chat.smile-dental.test beside www.smile-dental.test); the relay on another
 * site is tested in cross-site-resume.test.ts.
 */
const relaySameSite = () => `http://chat.smile-dental.test:${new URL(product.relayUrl).port}`;

async function openPanel(page: Page): Promise<Frame> {
  await page.goto(PAGE());
  await page.locator('practice-chat-q7x button').click();
  const frameElement = page.locator('practice-chat-q7x iframe');
  await expect.poll(() => frameElement.isVisible(), { timeout: 10_000 }).toBe(true);
  const frame = (await frameElement.elementHandle())!.contentFrame();
  const content = (await frame)!;
  await content.locator('textarea').waitFor();
  return content;
}

async function send(frame: Frame, text: string) {
  await frame.locator('textarea').fill(text);
  await frame.locator('textarea').press('Enter');
}

const messagesText = (frame: Frame) => frame.locator('.messages').innerText();
const visitorTextsUpstream = () =>
  [...product.simulator.store.messages.values()]
    .flat()
    .filter((message) => message.sender === 'visitor')
    .map((message) => message.text);

describe('the chat panel in real Chromium', () => {
  it('a visitor sends a message and sees the bot reply', async () => {
    const { context, page } = await openPage(browser);
    try {
      const frame = await openPanel(page);
      await send(frame, 'What are your opening hours?');
      await expect.poll(() => messagesText(frame), { timeout: 10_000 }).toMatch(/Monday to Friday/);
      expect(await frame.locator('.message.visitor .text').innerText()).toBe('What are your opening hours?');
    } finally {
      await context.close();
    }
  });

  it("escalates and sees a team member's message, labelled as a person", async () => {
    const { context, page } = await openPage(browser);
    try {
      const frame = await openPanel(page);
      await send(frame, 'I have a question about my bill');
      await frame.getByRole('button', { name: 'Talk to a person' }).click();
      await expect
        .poll(() => frame.locator('.notice').first().innerText())
        .toMatch(/team member has been asked to join/);
      await expect.poll(() => frame.locator('.message.agent').count(), { timeout: 10_000 }).toBeGreaterThan(0);
      expect(await frame.locator('.message.agent .author').first().innerText()).toMatch(/\(team member\)$/);
    } finally {
      await context.close();
    }
  });

  it('reloads and sees the same conversation, with no message text in browser storage', async () => {
    const { context, page } = await openPage(browser);
    try {
      let frame = await openPanel(page);
      await send(frame, 'Do you take Delta Dental insurance?');
      // Wait for the message to be sent (the greeting's own "insurance" suggestion would match any text at once).
      await expect
        .poll(() => frame.locator('.message.visitor').last().innerText(), { timeout: 10_000 })
        .not.toMatch(/Sending/);
      const stored = await frame.evaluate(
        () => JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage }),
      );
      expect(stored).not.toMatch(/Delta Dental/);
      expect(stored).toMatch(/practice-chat:smile-dental/);
      await page.reload();
      frame = await openPanel(page);
      await expect.poll(() => messagesText(frame), { timeout: 10_000 }).toMatch(/Do you take Delta Dental insurance\?/);
    } finally {
      await context.close();
    }
  });

  it('keeps the message while the relay is down, and delivers it once when it comes back', async () => {
    const { context, page } = await openPage(browser);
    try {
      const frame = await openPanel(page);
      await send(frame, 'First, while all is well');
      await expect.poll(() => frame.locator('.message.visitor').last().innerText()).not.toMatch(/Sending/);
      await product.stopRelay();
      await send(frame, 'Sent while the relay was down');
      await expect
        .poll(() => frame.locator('.message.visitor').last().innerText(), { timeout: 10_000 })
        .toMatch(/retrying/i);
      await product.restartRelay();
      await expect
        .poll(() => visitorTextsUpstream().filter((text) => text === 'Sent while the relay was down').length, {
          timeout: 25_000,
        })
        .toBe(1);
      await expect
        .poll(() => frame.locator('.message.visitor').last().innerText(), { timeout: 10_000 })
        .not.toMatch(/retrying|Sending/i);
      await page.waitForTimeout(1500);
      expect(visitorTextsUpstream().filter((text) => text === 'Sent while the relay was down')).toHaveLength(1);
    } finally {
      await context.close();
    }
  });

  it('closes on Escape and returns focus to the launcher', async () => {
    const { context, page } = await openPage(browser);
    try {
      const frame = await openPanel(page);
      await expect.poll(() => frame.evaluate(() => document.activeElement?.tagName)).toBe('TEXTAREA');
      await frame.locator('textarea').press('Escape');
      await expect.poll(() => page.locator('practice-chat-q7x iframe').isVisible()).toBe(false);
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.tagName))
        .toBe('BUTTON');
      expect(await page.locator('practice-chat-q7x button').getAttribute('aria-expanded')).toBe('false');
    } finally {
      await context.close();
    }
  });

  it('an axe-core scan of the open panel reports no violations, in light and dark', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const context = await browser.newContext({ colorScheme });
      const page = await context.newPage();
      try {
        const frame = await openPanel(page);
        await send(frame, 'What are your opening hours? https://smile.example/hours');
        await expect.poll(() => messagesText(frame), { timeout: 10_000 }).toMatch(/Monday/);
        const violations = await axeViolations(frame);
        expect(violations, colorScheme).toEqual([]);
      } finally {
        await context.close();
      }
    }
  });
});
