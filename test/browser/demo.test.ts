// The demo page in real Chromium: the real launcher and the real panel in preview mode, live edits, checks, the host
// tester, the snippet, and proof that a preview conversation never reaches upstream.
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { borrowChromium, giveBackChromium } from './harness.ts';
import { axeViolations } from './axe.ts';
import { startProduct } from '../support/product.ts';

const ARTIFACTS = new URL('../../test-results/', import.meta.url);

let browser: Browser;
let product: Awaited<ReturnType<typeof startProduct>>;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  [browser, product] = await Promise.all([borrowChromium(), startProduct()]);
});
afterAll(async () => {
  await Promise.all([giveBackChromium(browser), product?.close()]);
});

/** The viewport the kept context was made for; unset when a test made a context of its own. */
let contextViewport: string | undefined;

/**
 * A fresh load of the demo page. The context and its tab are kept from one load to the next at the same viewport: the
 * demo keeps nothing in the browser (no storage, no cookies), and a tab of its own per load would start a renderer
 * process each time. The colour scheme a test emulated is put back to a new context's.
 */
async function openDemo(query = '', viewport = { width: 1280, height: 800 }) {
  if (contextViewport !== JSON.stringify(viewport)) {
    await context?.close();
    context = await browser.newContext({
      viewport,
      ...(viewport.width < 600 ? { isMobile: true, hasTouch: true } : {}),
    });
    page = await context.newPage();
    contextViewport = JSON.stringify(viewport);
  } else await page.emulateMedia({ colorScheme: 'light' });
  await page.goto(`${product.relayUrl}/demo/${query}`);
  await page.locator('#icon-color-text').waitFor();
}

const launcher = () => page.locator('.mock-page practice-chat-q7x button');
const launcherStyle = () =>
  launcher().evaluate((button) => ({
    background: getComputedStyle(button).backgroundColor,
    opacity: getComputedStyle(button).opacity,
    label: button.getAttribute('aria-label'),
  }));

describe('the demo page', () => {
  it('loads demo-client by default, and another client id on request, showing its launcher colour', async () => {
    await openDemo();
    expect(await page.locator('#client-id').inputValue()).toBe('demo-client');
    await expect.poll(launcherStyle).toMatchObject({ background: 'rgb(15, 118, 110)', label: 'Chat with Aimee' });
    await page.locator('#client-id').fill('smile-dental');
    await page.getByRole('button', { name: 'Load' }).click();
    await expect
      .poll(launcherStyle)
      .toEqual({ background: 'rgb(29, 78, 216)', opacity: '0.9', label: 'Chat with Sunny' });
    expect(await page.locator('#snippet').innerText()).toBe(
      `<script async src="${product.relayUrl}/loader.js" data-client-id="smile-dental"></script>`,
    );
  });

  it('says so for an unknown client id', async () => {
    await openDemo();
    await page.locator('#client-id').fill('nobody-here');
    await page.getByRole('button', { name: 'Load' }).click();
    await expect
      .poll(() => page.getByRole('alert').innerText())
      .toMatch(/No configuration has the client id "nobody-here"/);
  });

  it('updates the preview at once when colour, opacity and name change', async () => {
    await openDemo();
    await page.locator('#icon-color-text').fill('#b91c1c');
    await page.locator('#opacity').fill('40');
    await page.locator('#bot-name').fill('Dr. Smile');
    // Drawn at the floor that keeps the icon at 3:1 on any page (src/shared/contrast.ts), not at the 40 % asked for.
    await expect
      .poll(launcherStyle)
      .toEqual({ background: 'rgb(185, 28, 28)', opacity: '0.67', label: 'Chat with Dr. Smile' });
    await expect.poll(() => page.locator('.checks').innerText()).toMatch(/40% opacity the launcher is hard to see/);
    // The panel is open from the start.
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
    const frame = page.frameLocator('iframe.preview-frame');
    await expect.poll(() => frame.locator('.notice.preview').innerText()).toMatch(/Preview/);
    await frame.locator('textarea').fill('Can I book a cleaning?');
    await frame.locator('textarea').press('Enter');
    await expect
      .poll(() => frame.locator('.messages').innerText(), { timeout: 10_000 })
      .toMatch(/preview reply from Aimee/);
    expect(product.simulator.counters.conversationsCreated).toBe(createdBefore);
    expect(product.simulator.counters.messagesReceived).toBe(messagesBefore);
    const conversationRequests = product.logLines
      .map((line) => JSON.parse(line))
      .filter((line) => String(line.route).startsWith('/v1/conversation'));
    // Both `/v1/conversations` (create) and every `/v1/conversation/...` call.
    expect(conversationRequests).toEqual([]);
  });

  it("lets only the relay's own pages embed the preview frame", async () => {
    const response = await fetch(`${product.relayUrl}/frame?client_id=demo-client&preview=1`);
    expect(response.headers.get('Content-Security-Policy')).toMatch(/frame-ancestors 'self'/);
  });

  it('has no axe-core violations at 1280×800 and 390×844, in light and dark, and keeps screenshots', async () => {
    for (const [width, height, colorScheme] of [
      [1280, 800, 'light'],
      [1280, 800, 'dark'],
      [390, 844, 'light'],
      [390, 844, 'dark'],
    ] as const) {
      await openDemo('', { width, height });
      await page.emulateMedia({ colorScheme });
      // The preview in the same scheme, so its panel is scanned too.
      if (colorScheme === 'dark') await page.getByText('Dark', { exact: true }).click();
      await page.frameLocator('iframe.preview-frame').locator('.messages .bubble').waitFor();
      await page.locator('#icon-color-text').fill('nonsense');
      await expect.poll(() => page.locator('#iconColor-note').count()).toBe(1);
      const violations = await axeViolations(page);
      expect(violations, `${width}×${height} ${colorScheme}`).toEqual([]);
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: new URL(`demo-${width}-${colorScheme}.png`, ARTIFACTS).pathname, fullPage: true });
    }
  });

  it.each([
    ['1280×800', 1280, 800],
    ['390×844', 390, 844],
  ])(
    'at %s shows the open panel with its greeting in the mock page, the closed launcher and the switches, without sideways scrolling',
    async (_name, width, height) => {
      await openDemo('', { width, height });
      const frame = page.frameLocator('.mock-page iframe.preview-frame');
      await expect.poll(() => frame.locator('.messages .bubble').innerText()).toBe("Hi, I'm Aimee. How can I help?");
      const mock = (await page.locator('.mock-page').boundingBox())!;
      const panel = (await page.locator('iframe.preview-frame').boundingBox())!;
      // The panel sits inside the mock practice page, and the real launcher in its corner.
      expect(panel.x).toBeGreaterThanOrEqual(mock.x);
      expect(panel.x + panel.width).toBeLessThanOrEqual(mock.x + mock.width + 1);
      expect(
        await page.locator('.mock-page practice-chat-q7x.preview-launcher button').getAttribute('aria-expanded'),
      ).toBe('true');
      expect(await page.locator('.closed-look practice-chat-q7x button').getAttribute('aria-expanded')).toBe('false');
      // By default the greeting with its suggestions, as a patient first sees it; one switch away, a sample exchange.
      expect(await frame.locator('.suggestion').count()).toBe(4);
      for (const name of ['Desktop', 'Phone', 'Light', 'Dark', 'English', 'Español', 'Greeting', 'Sample chat']) {
        expect(await page.getByRole('radio', { name }).count(), name).toBe(1);
      }
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
      expect(await page.getByRole('radio', { name: width < 600 ? 'Phone' : 'Desktop' }).isChecked()).toBe(true);
    },
  );

  it('switches the preview to the phone, dark and Spanish views', async () => {
    await openDemo();
    const desktopWidth = (await page.locator('.mock-page').boundingBox())!.width;
    await page.getByText('Phone', { exact: true }).click();
    await expect.poll(async () => (await page.locator('.mock-page').boundingBox())!.width).toBeLessThan(desktopWidth);
    await page.getByText('Dark', { exact: true }).click();
    await page.getByText('Español', { exact: true }).click();
    const frame = page.frameLocator('iframe.preview-frame');
    await expect
      .poll(() => frame.locator('.greeting .bubble').innerText())
      .toBe('Hola, soy Aimee. ¿En qué puedo ayudarle?');
    expect(await frame.locator('.suggestion').count()).toBe(4);
    // The sample exchange: the first suggestion, answered by the preview bot, under the greeting.
    await page.getByText('Sample chat', { exact: true }).click();
    await expect
      .poll(() => frame.locator('.message.visitor .text').innerText())
      .toBe('¿Cuál es su horario de atención?');
    await expect.poll(() => frame.locator('.message.bot').count(), { timeout: 10_000 }).toBe(1);
    expect(await frame.locator('.messages > .bubble').innerText()).toBe('Hola, soy Aimee. ¿En qué puedo ayudarle?');
    expect(await frame.locator('html').getAttribute('data-theme')).toBe('dark');
    expect(await frame.locator('body').evaluate((body) => getComputedStyle(body).backgroundColor)).toBe(
      'rgb(17, 24, 39)',
    );
    expect(await page.locator('.mock-page practice-chat-q7x button').getAttribute('aria-label')).toBe(
      'Chatear con Aimee',
    );
  });

  it("narrows the CSP advice to the relay's origin, images included", async () => {
    await openDemo();
    const origin = product.relayUrl;
    expect((await page.locator('#csp').innerText()).split('\n')).toEqual([
      `script-src ${origin};`,
      `connect-src ${origin};`,
      `frame-src ${origin};`,
      `img-src ${origin};`,
    ]);
  });

  it('shares the preview in a link whose settings live in the fragment, and the link restores them', async () => {
    await openDemo();
    await page.locator('#bot-name').fill('Dr. Smile');
    await page.locator('#icon-color-text').fill('#b91c1c');
    await page.getByText('Dark', { exact: true }).click();
    await page.getByText('Español', { exact: true }).click();
    const link = await page.locator('#share-link').getAttribute('href');
    expect(new URL(link!).search).toBe('');
    expect(new URL(link!).hash).toMatch(/^#preview=[A-Za-z0-9_-]+$/);
    const requested: string[] = [];
    // A new context: nothing but the link carries the settings.
    await context.close();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    contextViewport = undefined;
    page = await context.newPage();
    page.on('request', (request) => requested.push(request.url()));
    await page.goto(link!);
    await page.locator('#icon-color-text').waitFor();
    await expect.poll(() => page.locator('#bot-name').inputValue()).toBe('Dr. Smile');
    expect(await page.locator('#icon-color-text').inputValue()).toBe('#b91c1c');
    expect(await page.getByRole('radio', { name: 'Dark' }).isChecked()).toBe(true);
    expect(await page.getByRole('radio', { name: 'Español' }).isChecked()).toBe(true);
    await expect.poll(launcherStyle).toMatchObject({ background: 'rgb(185, 28, 28)', label: 'Chatear con Dr. Smile' });
    // The settings never reach a server: no request carries the fragment's contents.
    const carried = new URL(link!).hash.slice('#preview='.length);
    expect(requested.length).toBeGreaterThan(0);
    expect(
      requested.filter((url) => url.includes(carried) || /Dr\.|Smile|b91c1c/i.test(decodeURIComponent(url))),
    ).toEqual([]);
  });
});
