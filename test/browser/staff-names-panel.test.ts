// The panel's labels agree with its greeting: on smile-dental it greets as Sunny, and through the real loader, relay
// and simulator the bot's reply is signed Sunny too; a reply from the simulator's staff page shows as Smile Dental's
// team member, Grace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import {
  borrowChromium,
  giveBackChromium,
  openPage,
  serveHostPages,
  typeAndSend,
  type HostPageServer,
} from './harness.ts';
import { startProduct } from '../support/product.ts';
import { smileDentalPage } from '../support/host-page.ts';

let browser: Browser;
let product: Awaited<ReturnType<typeof startProduct>>;
let host: HostPageServer;

beforeAll(async () => {
  [browser, product] = await Promise.all([borrowChromium(), startProduct()]);
  host = await serveHostPages({
    '/': smileDentalPage(product.relayUrl),
  });
});
afterAll(async () => {
  await Promise.all([giveBackChromium(browser), product?.close(), host?.close()]);
});

describe('who the panel says is writing, on smile-dental', () => {
  it('greets as Sunny, labels the bot’s reply Sunny, and a staff page reply Grace (team member)', async () => {
    const { context, page } = await openPage(browser);
    try {
      await page.goto(`http://www.smile-dental.test:${host.port}/`);
      await page.locator('practice-chat-q7x button').click();
      const frameElement = page.locator('practice-chat-q7x iframe');
      await expect.poll(() => frameElement.isVisible(), { timeout: 10_000 }).toBe(true);
      const frame = (await (await frameElement.elementHandle())!.contentFrame())!;
      await frame.locator('textarea').waitFor();
      await expect.poll(() => frame.locator('.greeting').innerText()).toMatch(/^Hi, I'm Sunny\./);

      await typeAndSend(frame, 'When are you open?');
      const authors = () => frame.locator('.message .author').allInnerTexts();
      await expect.poll(authors, { timeout: 15_000 }).toContain('Sunny (automated)');
      expect((await authors()).filter((author) => /Aimee/.test(author))).toEqual([]);

      const [id] = [...product.simulator.store.conversations.keys()];
      const reply = await fetch(`${product.upstream.url}/staff/api/conversations/${id}/messages`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ text: 'Hello, Grace here. We open at 8.' }),
      });
      expect(reply.status).toBe(201);
      await expect.poll(authors, { timeout: 20_000 }).toContain('Grace (team member)');
    } finally {
      await context.close();
    }
  }, 60_000);
});
