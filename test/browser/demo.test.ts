// The demo page in real Chromium: the real launcher and the real panel in preview mode, live edits, checks, the host
// tester, the snippet, and proof that a preview conversation never reaches upstream.
import { createRequire } from 'node:module';
import { mkdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser } from './harness.ts';
import { startProduct } from '../support/product.ts';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const ARTIFACTS = new URL('../../test-results/', import.meta.url);

let browser: Browser;
let product: Awaited<ReturnType<typeof startProduct>>;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  [browser, product] = await Promise.all([launchBrowser(), startProduct()]);
});
afterAll(async () => {
  await Promise.all([browser?.close(), product?.close()]);
});

async function openDemo(query = '') {
  await context?.close();
  context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  page = await context.newPage();
  await page.goto(`${product.relayUrl}/demo/${query}`);
  await page.locator('#icon-color-text').waitFor();
}

const launcher = () => page.locator('practice-chat button');
const launcherStyle = () =>
  launcher().evaluate((button) => ({ background: getComputedStyle(button).backgroundColor, opacity: getComputedStyle(button).opacity, label: button.getAttribute('aria-label') }));

describe('the demo page', () => {
  it('loads demo-client by default, and another client id on request, showing its launcher colour', async () => {
    await openDemo();
    expect(await page.locator('#client-id').inputValue()).toBe('demo-client');
    await expect.poll(launcherStyle).toMatchObject({ background: 'rgb(15, 118, 110)', label: 'Chat with Aimee' });
    await page.locator('#client-id').fill('smile-dental');
    await page.getByRole('button', { name: 'Load' }).click();
    await expect.poll(launcherStyle).toEqual({ background: 'rgb(29, 78, 216)', opacity: '0.9', label: 'Chat with Sunny' });
    expect(await page.locator('#snippet').innerText()).toBe(`<script async src="${product.relayUrl}/loader.js" data-client-id="smile-dental"></script>`);
  });

  it('says so for an unknown client id', async () => {
    await openDemo();
    await page.locator('#client-id').fill('nobody-here');
    await page.getByRole('button', { name: 'Load' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toMatch(/No configuration has the client id "nobody-here"/);
  });

  it('updates the preview at once when colour, opacity and name change', async () => {
    await openDemo();
    await page.locator('#icon-color-text').fill('#b91c1c');
    await page.locator('#opacity').fill('40');
    await page.locator('#bot-name').fill('Dr. Smile');
    await expect.poll(launcherStyle).toEqual({ background: 'rgb(185, 28, 28)', opacity: '0.4', label: 'Chat with Dr. Smile' });
    await expect.poll(() => page.locator('.checks').innerText()).toMatch(/40% opacity the launcher is hard to see/);
    await launcher().click();
    const frame = page.frameLocator('iframe.preview-frame');
    await expect.poll(() => frame.locator('#chat-title').innerText()).toBe('Chat with Dr. Smile');
  });

  it('shows what a bad colour becomes, and says why', async () => {
    await openDemo();
    await page.locator('#icon-color-text').fill('red;background:url(x)');
    await expect.poll(() => page.locator('#iconColor-note').innerText()).toMatch(/not a hex colour.*default #0f766e/);
    await expect.poll(launcherStyle).toMatchObject({ background: 'rgb(15, 118, 110)' });
  });

  it('answers the host tester with reasons', async () => {
    await openDemo();
    await page.locator('#domains').fill('smile-dental.com\n*.smile-dental.test');
    const ask = async (address: string) => {
      await page.locator('#host-input').fill(address);
      return page.locator('#host-answer').innerText();
    };
    expect(await ask('https://smile-dental.com')).toMatch(/^Yes: .*listed exactly/);
    expect(await ask('https://booking.smile-dental.test')).toMatch(/^Yes: .*wildcard entry "\*\.smile-dental\.test"/);
    expect(await ask('https://booking.smile-dental.com')).toMatch(/^No: .*not one of the allowed domains/);
    expect(await ask('https://smile-dental.com.evil.example')).toMatch(/^No: /);
    expect(await ask('https://www.smile-dental.com')).toMatch(/^No: .*no implicit www/);
  });

  it('previews a conversation with the preview bot, and creates nothing upstream', async () => {
    await openDemo();
    const createdBefore = product.simulator.counters.conversationsCreated;
    const messagesBefore = product.simulator.counters.messagesReceived;
    await launcher().click();
    const frame = page.frameLocator('iframe.preview-frame');
    await expect.poll(() => frame.locator('.notice.preview').innerText()).toMatch(/Preview/);
    await frame.locator('textarea').fill('Can I book a cleaning?');
    await frame.locator('textarea').press('Enter');
    await expect.poll(() => frame.locator('.messages').innerText(), { timeout: 10_000 }).toMatch(/preview reply from Aimee/);
    expect(product.simulator.counters.conversationsCreated).toBe(createdBefore);
    expect(product.simulator.counters.messagesReceived).toBe(messagesBefore);
    const conversationRequests = product.logLines.map((line) => JSON.parse(line)).filter((line) => String(line.route).startsWith('/v1/conversations'));
    expect(conversationRequests).toEqual([]);
  });

  it('lets only the relay\'s own pages embed the preview frame', async () => {
    const response = await fetch(`${product.relayUrl}/frame?client_id=demo-client&preview=1`);
    expect(response.headers.get('Content-Security-Policy')).toMatch(/frame-ancestors 'self'/);
  });

  it('has no axe-core violations, in light and dark, and keeps a screenshot', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      await openDemo();
      await page.emulateMedia({ colorScheme });
      await page.locator('#icon-color-text').fill('nonsense');
      await expect.poll(() => page.locator('#iconColor-note').count()).toBe(1);
      await page.evaluate(AXE_SOURCE);
      const violations = await page.evaluate(async () => {
        const axe = (window as unknown as { axe: { run(context: Document): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> }> } }).axe;
        const result = await axe.run(document);
        return result.violations.map((violation) => `${violation.id}: ${JSON.stringify(violation.nodes.map((node) => node.target))}`);
      });
      expect(violations, colorScheme).toEqual([]);
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: new URL(`demo-${colorScheme}.png`, ARTIFACTS).pathname, fullPage: true });
    }
  });

  it('works on a phone-sized screen', async () => {
    await context?.close();
    context = await browser.newContext({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });
    page = await context.newPage();
    await page.goto(`${product.relayUrl}/demo/`);
    await page.locator('#icon-color-text').waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await launcher().tap();
    const box = await page.locator('iframe.preview-frame').boundingBox();
    expect(box).toMatchObject({ x: 0, y: 0, width: 375 });
  });
});
