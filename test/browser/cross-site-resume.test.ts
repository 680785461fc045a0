// The relay on another site than the practice's page, in Chromium launched as users have it (storage partitioned by
// top-level site, not blocked: test/browser/harness.ts). The page is www.smile-dental.test, the relay
// chat.vendor-relay.test; the seeded smile-dental configuration allows *.smile-dental.test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';
import {
  CHROMIUM_PATH,
  borrowChromium,
  giveBackChromium,
  openPage,
  serveHostPages,
  typeAndSend,
  type HostPageServer,
} from './harness.ts';
import { startProduct } from '../support/product.ts';

let browser: Browser;
let product: Awaited<ReturnType<typeof startProduct>>;
let host: HostPageServer;

const relay = () => `http://chat.vendor-relay.test:${new URL(product.relayUrl).port}`;
const page = (path: string) => `http://www.smile-dental.test:${host.port}${path}`;
const hostPage = (title: string, locale = 'en') =>
  `<!doctype html><html lang="${locale}"><head><meta charset="utf-8"><title>${title}</title></head><body><main><h1>${title}</h1></main>
<script async src="${relay()}/loader.js" data-client-id="smile-dental" data-locale="${locale}"></script></body></html>`;

beforeAll(async () => {
  [browser, product] = await Promise.all([borrowChromium(), startProduct({ relayHost: 'chat.vendor-relay.test' })]);
  host = await serveHostPages({
    '/': () => ({ body: hostPage('Smile Dental') }),
    '/services': () => ({ body: hostPage('Our services') }),
    '/es': () => ({ body: hostPage('Smile Dental', 'es') }),
  });
});
afterAll(async () => {
  await Promise.all([giveBackChromium(browser), product?.close(), host?.close()]);
});

async function openPanel(tab: Page, path = '/'): Promise<Frame> {
  await tab.goto(page(path));
  await tab.locator('practice-chat-q7x button').click();
  const frameElement = tab.locator('practice-chat-q7x iframe');
  await expect.poll(() => frameElement.isVisible(), { timeout: 10_000 }).toBe(true);
  const frame = (await (await frameElement.elementHandle())!.contentFrame())!;
  await frame.locator('textarea').waitFor();
  return frame;
}

async function sendAndWaitForReply(frame: Frame, text: string) {
  await typeAndSend(frame, text);
  await expect.poll(() => frame.locator('.message.bot').count(), { timeout: 10_000 }).toBeGreaterThan(0);
}

const messagesText = (frame: Frame) => frame.locator('.messages').innerText();

/**
 * The panel greets and shows no message. A conversation picked up again would hide the greeting as the panel draws,
 * then show its messages: the panel has started one way or the other once either is there.
 */
async function startedEmpty(frame: Frame) {
  await frame.locator('.greeting, .message').first().waitFor({ timeout: 10_000 });
  expect(await frame.locator('.message').count()).toBe(0);
  expect(await frame.locator('.greeting').count()).toBe(1);
}

describe('a conversation with the relay on another site than the practice page', () => {
  it('is the cross-site setup it claims to be: the frame is on the relay site, the page on the practice site', async () => {
    const { context, page: tab } = await openPage(browser);
    try {
      const frame = await openPanel(tab);
      expect(new URL(frame.url()).hostname).toBe('chat.vendor-relay.test');
      expect(new URL(tab.url()).hostname).toBe('www.smile-dental.test');
      expect(await frame.evaluate(() => typeof window.sessionStorage.setItem)).toBe('function');
      expect(await frame.locator('.notice.no-resume').count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('survives a reload and a move to another page of the practice site', async () => {
    const { context, page: tab } = await openPage(browser);
    try {
      let frame = await openPanel(tab);
      await sendAndWaitForReply(frame, 'Do you take Delta Dental insurance?');
      await tab.reload();
      frame = await openPanel(tab);
      await expect.poll(() => messagesText(frame), { timeout: 10_000 }).toMatch(/Do you take Delta Dental insurance\?/);
      frame = await openPanel(tab, '/services');
      await expect.poll(() => messagesText(frame), { timeout: 10_000 }).toMatch(/Do you take Delta Dental insurance\?/);
    } finally {
      await context.close();
    }
  });

  it('End chat forgets it: after a reload the panel starts empty', async () => {
    const { context, page: tab } = await openPage(browser);
    try {
      let frame = await openPanel(tab);
      await sendAndWaitForReply(frame, 'What are your opening hours?');
      await frame.getByRole('button', { name: 'End chat' }).click();
      await frame.getByRole('button', { name: 'Start a new chat' }).waitFor();
      expect(
        await frame.evaluate(() => Object.keys(sessionStorage).filter((key) => key.startsWith('practice-chat'))),
      ).toEqual([]);
      await tab.reload();
      frame = await openPanel(tab);
      await startedEmpty(frame);
    } finally {
      await context.close();
    }
  });

  it('another browser profile does not see it', async () => {
    const first = await openPage(browser);
    const second = await openPage(browser);
    try {
      const frame = await openPanel(first.page);
      await sendAndWaitForReply(frame, 'A question only the first visitor asked');
      const other = await openPanel(second.page);
      await startedEmpty(other);
      expect(
        await other.evaluate(() => Object.keys(sessionStorage).filter((key) => key.startsWith('practice-chat'))),
      ).toEqual([]);
    } finally {
      await Promise.all([first.context.close(), second.context.close()]);
    }
  });

  it("leaves nothing of the conversation in the host page's storage or cookies", async () => {
    const { context, page: tab } = await openPage(browser);
    try {
      const frame = await openPanel(tab);
      await sendAndWaitForReply(frame, 'Nothing of this belongs to the host page');
      const hostState = await tab.evaluate(() => ({
        session: Object.keys(sessionStorage),
        local: Object.keys(localStorage),
        cookie: document.cookie,
      }));
      expect(hostState).toEqual({ session: [], local: [], cookie: '' });
      expect(await context.cookies()).toEqual([]);
      // The handle is in the frame's own, partitioned storage, and only the handle.
      const frameState = await frame.evaluate(
        () => JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage }),
      );
      expect(frameState).toMatch(/practice-chat:smile-dental/);
      expect(frameState).not.toMatch(/belongs to the host page/);
    } finally {
      await context.close();
    }
  });
});

describe('a browser that denies the frame storage', () => {
  // Playwright's own defaults disable storage partitioning, and Chromium then denies a cross-site frame its storage,
  // as a visitor's "block third-party cookies and site data" setting does.
  let blocking: Browser;
  beforeAll(async () => {
    blocking = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: ['--no-sandbox', '--host-resolver-rules=MAP *.test 127.0.0.1'],
    });
  });
  afterAll(async () => {
    await blocking?.close();
  });

  for (const [path, expected] of [
    ['/', /will not continue on another page/],
    ['/es', /no continuará en otra página/],
  ] as const) {
    it(`the panel says in one line that the chat will not continue on another page (${path === '/' ? 'en' : 'es'}), and the chat still works`, async () => {
      const { context, page: tab } = await openPage(blocking);
      try {
        const frame = await openPanel(tab, path);
        await expect
          .poll(() =>
            frame.evaluate(() => {
              try {
                sessionStorage.setItem('x', '1');
                return 'usable';
              } catch {
                return 'denied';
              }
            }),
          )
          .toBe('denied');
        const lines = frame.locator('.notice.no-resume');
        await expect.poll(() => lines.count()).toBe(1);
        expect(await lines.innerText()).toMatch(expected);
        await sendAndWaitForReply(frame, 'Still works without storage');
      } finally {
        await context.close();
      }
    });
  }
});
