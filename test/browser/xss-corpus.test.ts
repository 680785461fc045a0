// A corpus of XSS payloads delivered as bot and team-member messages through the simulator and typed by a visitor,
// rendered by the real panel in real Chromium: nothing runs, no on* attribute, no unsafe href, no element a message
// could only have made as HTML, and every payload shows as the exact text it was.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { borrowChromium, giveBackChromium, serveHostPages, typeAndSend, type HostPageServer } from './harness.ts';
import { startProduct } from '../support/product.ts';
import { SAFE_HREF, xssPayloads } from '../support/xss-corpus.ts';
import { recordXssCalls } from './xss-hook.ts';

const PAYLOADS = xssPayloads();
let browser: Browser;
let product: Awaited<ReturnType<typeof startProduct>>;
let host: HostPageServer;
let context: BrowserContext;
let page: Page;
let frame: Frame;
const dialogs: string[] = [];

beforeAll(async () => {
  [browser, product] = await Promise.all([
    borrowChromium(),
    // One visitor types the whole corpus; the per-conversation quota is not what this suite is about.
    startProduct({
      relayHost: 'chat.vendor-relay.test',
      environment: { MESSAGES_PER_MINUTE_PER_CONVERSATION: '1000' },
    }),
  ]);
  const relay = `http://chat.vendor-relay.test:${new URL(product.relayUrl).port}`;
  host = await serveHostPages({
    '/': `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Smile Dental</title></head><body><h1>Smile Dental</h1>
<script async src="${relay}/loader.js" data-client-id="smile-dental" data-locale="en"></script></body></html>`,
  });
  context = await browser.newContext();
  await context.addInitScript(recordXssCalls);
  page = await context.newPage();
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await page.goto(`http://www.smile-dental.test:${host.port}/`);
  await page.locator('practice-chat-q7x button').click();
  frame = (await (await page.locator('practice-chat-q7x iframe').elementHandle())!.contentFrame())!;
  await frame.locator('textarea').waitFor();
});
afterAll(async () => {
  // The context before its browser: closed together, the browser can win and the context's close then throws.
  await context?.close();
  await Promise.all([giveBackChromium(browser), product?.close(), host?.close()]);
});

interface Scan {
  hits: unknown[];
  onAttributes: string[];
  unsafeHrefs: string[];
  foreignTags: string[];
  texts: string[];
}

/** What the panel's DOM holds, as a reviewer would check it. */
function scan(target: Frame | Page): Promise<Scan> {
  return target.evaluate((safeHref) => {
    const safe = new RegExp(safeHref, 'i');
    const all = [...document.querySelectorAll('*')];
    const onAttributes = all.flatMap((element) =>
      [...element.attributes]
        .filter((attribute) => /^on/i.test(attribute.name))
        .map((attribute) => `${element.tagName} ${attribute.name}`),
    );
    const unsafeHrefs = [...document.querySelectorAll('[href], [action], [formaction], [xlink\\:href]')]
      .map(
        (element) =>
          element.getAttribute('href') ?? element.getAttribute('action') ?? element.getAttribute('formaction') ?? '',
      )
      // The panel's own stylesheet link is the one same-origin href the page has.
      .filter((href) => !href.startsWith('/assets/') && !safe.test(href));
    const allowed = new Set(['LI', 'P', 'A', 'SPAN', 'DIV', 'TIME', 'BUTTON', 'UL', 'OL', 'STRONG', 'SMALL']);
    const list = document.querySelector('.messages');
    const foreignTags = [...(list?.querySelectorAll('*') ?? [])]
      .map((element) => element.tagName)
      .filter((tag) => !allowed.has(tag));
    const texts = [...document.querySelectorAll('.message .text')].map((element) => element.textContent ?? '');
    return {
      hits: [...((window as unknown as { __xssHits: unknown[] }).__xssHits ?? [])],
      onAttributes,
      unsafeHrefs,
      foreignTags,
      texts,
    };
  }, SAFE_HREF.source);
}

function upstreamConversationWith(visitorText: string): string {
  for (const [id, messages] of product.simulator.store.messages) {
    if (messages.some((message) => message.sender === 'visitor' && message.text === visitorText)) return id;
  }
  throw new Error('no such conversation upstream');
}

async function expectClean(expectedTexts: readonly string[]) {
  const result = await scan(frame);
  expect(result.hits).toEqual([]);
  expect(dialogs).toEqual([]);
  expect(result.onAttributes).toEqual([]);
  expect(result.unsafeHrefs).toEqual([]);
  expect(result.foreignTags).toEqual([]);
  for (const text of expectedTexts) expect(result.texts).toContain(text);
  expect(await scan(page).then((outer) => [outer.hits, outer.onAttributes])).toEqual([[], []]);
}

describe('the XSS corpus in the real panel', () => {
  it(`has at least 200 payloads (${PAYLOADS.length})`, () => {
    expect(PAYLOADS.length).toBeGreaterThanOrEqual(200);
  });

  it('positive control: the scan sees an executed payload, a dialog, an on* attribute, an unsafe href and a foreign tag', async () => {
    const control = await context.newPage();
    const controlDialogs: string[] = [];
    control.on('dialog', (dialog) => {
      controlDialogs.push(dialog.message());
      void dialog.dismiss();
    });
    try {
      // A page with no CSP that renders a payload as HTML, as a broken panel would.
      await control.setContent(
        `<ul class="messages"><li class="message"><p class="text">${PAYLOADS[9]}</p></li></ul><a href="javascript:void 0">x</a>`,
      );
      await expect.poll(async () => (await scan(control)).hits).toEqual([9]);
      const result = await scan(control);
      expect(result.onAttributes).toEqual(['IMG onerror']);
      expect(result.unsafeHrefs).toEqual(['javascript:void 0']);
      expect(result.foreignTags).toEqual(['IMG']);
      await control.evaluate(() => setTimeout(() => alert('control'), 0));
      await expect.poll(() => controlDialogs).toEqual(['control']);
    } finally {
      await control.close();
    }
  });

  it('delivered as bot and team-member messages through the simulator: zero executed, shown as exact text', async () => {
    const start = 'Starting the XSS corpus run';
    await typeAndSend(frame, start);
    await expect.poll(() => product.simulator.store.messages.size, { timeout: 10_000 }).toBeGreaterThan(0);
    await expect
      .poll(
        () => {
          try {
            return upstreamConversationWith(start);
          } catch {
            return null;
          }
        },
        { timeout: 10_000 },
      )
      .not.toBeNull();
    const conversationId = upstreamConversationWith(start);
    // The panel keeps the latest 100 messages in the page: check in batches that fit.
    for (let from = 0; from < PAYLOADS.length; from += 40) {
      const batch = PAYLOADS.slice(from, from + 40);
      batch.forEach((payload, offset) => {
        expect(product.simulator.writeAs(conversationId, (from + offset) % 2 === 0 ? 'bot' : 'agent', payload)).toBe(
          true,
        );
      });
      await expect.poll(async () => (await scan(frame)).texts.includes(batch.at(-1)!), { timeout: 15_000 }).toBe(true);
      await expectClean(batch);
    }
  }, 120_000);

  it('typed by the visitor: zero executed, shown as exact text', async () => {
    for (let from = 0; from < PAYLOADS.length; from += 10)
      await typeAndSend(frame, PAYLOADS.slice(from, from + 10).join('\n'), 'paste');
    const last = PAYLOADS.slice(Math.floor((PAYLOADS.length - 1) / 10) * 10).join('\n');
    await expect.poll(async () => (await scan(frame)).texts.includes(last), { timeout: 15_000 }).toBe(true);
    await expectClean([last]);
    // And upstream got exactly what was typed (the panel shows a message at once, before its send completes: wait).
    const typed = () =>
      [...product.simulator.store.messages.values()]
        .flat()
        .filter((message) => message.sender === 'visitor')
        .map((message) => message.text);
    await expect.poll(() => typed().includes(last), { timeout: 15_000 }).toBe(true);
    for (let from = 0; from < PAYLOADS.length; from += 10)
      expect(typed()).toContain(PAYLOADS.slice(from, from + 10).join('\n'));
  }, 120_000);
});
