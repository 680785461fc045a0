// Replies by the relay's live stream, in real Chromium, with the relay on another site than the practice's page
// (www.smile-dental.test and chat.vendor-relay.test): a team member's message stored upstream reaches an open, idle
// panel with no poll of the relay in between, the unread count changes with the panel closed, and behind a proxy that
// buffers whole answers the panel falls back to polling and still shows replies.
import { afterAll, beforeAll, describe, type ExpectStatic, it } from 'vitest';
import type { Browser, Frame, Page } from 'playwright-core';
import {
  borrowChromium,
  giveBackChromium,
  launchTestChromium,
  openPage,
  serveHostPages,
  typeAndSend,
  type HostPageServer,
} from './harness.ts';
import { startProduct } from '../support/product.ts';
import { startBufferingProxy, type BufferingProxy } from '../support/buffering-proxy.ts';
import { freePort } from '../support/free-port.ts';
import { smileDentalPage } from '../support/host-page.ts';
import { STREAM_SILENCE_LIMIT_MS } from '../../src/shared/wire.ts';

type Product = Awaited<ReturnType<typeof startProduct>>;

let browser: Browser;
/**
 * The test behind the buffering proxy runs beside the streaming tests, in a browser of its own: two patients typing at
 * once in tabs of one headless Chromium once lost every keystroke of one of them (the composer held nothing).
 */
let bufferedBrowser: Browser;
let host: HostPageServer;
/** The relay browsers reach directly. */
let direct: Product;
/** Another relay, reached only through a proxy that buffers whole answers. */
let buffered: Product;
let proxy: BufferingProxy;
let proxyPort: number;

const RELAY_HOST = 'chat.vendor-relay.test';
const directRelay = () => `http://${RELAY_HOST}:${new URL(direct.relayUrl).port}`;
const bufferedRelay = () => `http://${RELAY_HOST}:${proxyPort}`;
const hostPage = (relay: string) => smileDentalPage(relay, ' data-locale="en"');

beforeAll(async () => {
  proxyPort = await freePort();
  [browser, bufferedBrowser, direct, buffered] = await Promise.all([
    borrowChromium(),
    launchTestChromium(),
    startProduct({ relayHost: RELAY_HOST }),
    // The relay's public address is the proxy's: that is the only way browsers reach it.
    startProduct({ environment: { PUBLIC_ORIGIN: `http://${RELAY_HOST}:${proxyPort}` } }),
  ]);
  proxy = await startBufferingProxy(buffered.relayUrl, proxyPort);
  host = await serveHostPages({
    '/': () => ({ body: hostPage(directRelay()) }),
    '/behind-a-buffering-proxy': () => ({ body: hostPage(bufferedRelay()) }),
  });
});
afterAll(async () => {
  await Promise.all([
    giveBackChromium(browser),
    bufferedBrowser?.close(),
    direct?.close(),
    buffered?.close(),
    proxy?.close(),
    host?.close(),
  ]);
});

// The helpers take the running test's own expect: expect.poll needs to know its test, and the tests run side by side.
async function openPanel(expect: ExpectStatic, tab: Page, path = '/'): Promise<Frame> {
  await tab.goto(`http://www.smile-dental.test:${host.port}${path}`);
  await tab.locator('practice-chat-q7x button').click();
  const frameElement = tab.locator('practice-chat-q7x iframe');
  await expect.poll(() => frameElement.isVisible(), { timeout: 10_000 }).toBe(true);
  const frame = (await (await frameElement.elementHandle())!.contentFrame())!;
  await frame.locator('textarea').waitFor();
  return frame;
}

/** The relay's own record of the requests it answered (its request log: method and route, nothing else). */
const relayRequests = (product: Product, method: string, route: string) =>
  product.logLines.filter(
    (line) => line.includes('"event":"request"') && line.includes(`"method":"${method}","route":"${route}"`),
  ).length;
const polls = (product: Product) => relayRequests(product, 'GET', '/v1/conversation/messages');
const streams = (product: Product) => relayRequests(product, 'GET', '/v1/conversation/events');

/** What a team member writes in the practice's own tool: stored upstream (the simulator's writeAs), and nothing else: no event, no wake. */
function teamMemberWrites(product: Product, visitorText: string, text: string) {
  const id = [...product.simulator.store.messages.entries()].find(([, messages]) =>
    messages.some((message) => message.text === visitorText),
  )?.[0];
  if (id === undefined || !product.simulator.writeAs(id, 'agent', text))
    throw new Error('no conversation upstream with that visitor message');
}

async function startConversation(expect: ExpectStatic, tab: Page, text: string, path = '/') {
  const frame = await openPanel(expect, tab, path);
  await typeAndSend(frame, text);
  await expect.poll(() => frame.locator('.message.bot').count(), { timeout: 60_000 }).toBeGreaterThan(0);
  return frame;
}

// The test behind the buffering proxy runs beside the streaming tests, on its own relay. Those two count that relay's
// polls, so they run one after the other.
describe('replies by the live stream', { concurrent: true }, () => {
  it.sequential("a team member's message reaches an open, idle panel with no poll of the relay in between", async ({
    expect,
  }) => {
    const { context, page: tab } = await openPage(browser);
    try {
      const frame = await startConversation(expect, tab, 'Can someone check my appointment?');
      const pollsBefore = polls(direct);
      expect(streams(direct)).toBeGreaterThan(0);
      teamMemberWrites(direct, 'Can someone check my appointment?', 'Hi, this is Maria from the front desk.');
      await expect
        .poll(() => frame.locator('.message.agent .text').allInnerTexts(), { timeout: 25_000 })
        .toEqual(['Hi, this is Maria from the front desk.']);
      expect(polls(direct)).toBe(pollsBefore);
    } finally {
      await context.close();
    }
  });

  it.sequential('the unread count changes with the panel closed, without polling', async ({ expect }) => {
    const { context, page: tab } = await openPage(browser);
    try {
      const frame = await startConversation(expect, tab, 'Is Dr. Patel in on Friday?');
      await frame.getByRole('button', { name: /close/i }).first().click();
      await expect.poll(() => tab.locator('practice-chat-q7x iframe').isVisible()).toBe(false);
      const pollsBefore = polls(direct);
      teamMemberWrites(direct, 'Is Dr. Patel in on Friday?', 'Yes, all day.');
      await expect.poll(() => tab.locator('practice-chat-q7x span').innerText(), { timeout: 25_000 }).toBe('1');
      expect(await tab.locator('practice-chat-q7x button').getAttribute('aria-label')).toMatch(/\(1\)$/);
      expect(polls(direct)).toBe(pollsBefore);
    } finally {
      await context.close();
    }
  });
});

describe('behind a proxy that buffers whole answers', { concurrent: true }, () => {
  it('the stream delivers nothing, so the panel falls back to polling and still shows replies', async ({ expect }) => {
    const { context, page: tab } = await openPage(bufferedBrowser);
    try {
      // The panel gives up on a stream that says nothing after STREAM_SILENCE_LIMIT_MS of its own clock: the page's
      // clock (every frame's) is moved on by that much once the stream is open, rather than waited for. The path is the
      // same: the panel's own silence timer fires, nothing else.
      await context.clock.install();
      const frame = await openPanel(expect, tab, '/behind-a-buffering-proxy');
      await typeAndSend(frame, 'What are your opening hours?');
      await expect.poll(() => proxy.requests.includes('GET /v1/conversation/events')).toBe(true);
      // No poll yet: the one that comes after the clock moves on is the silence timer's.
      expect(proxy.requests).not.toContain('GET /v1/conversation/messages');
      await context.clock.fastForward(STREAM_SILENCE_LIMIT_MS);
      // It shows once the panel has given up on the stream and polled.
      await expect.poll(() => frame.locator('.message.bot').count(), { timeout: 60_000 }).toBeGreaterThan(0);
      expect(proxy.requests).toContain('GET /v1/conversation/messages');
      teamMemberWrites(buffered, 'What are your opening hours?', 'We also open on Saturday mornings.');
      await expect
        .poll(() => frame.locator('.message.agent .text').allInnerTexts(), { timeout: 25_000 })
        .toEqual(['We also open on Saturday mornings.']);
    } finally {
      await context.close();
    }
  }, 120_000);
});
