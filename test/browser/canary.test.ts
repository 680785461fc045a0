// One run through the whole product (real Chromium → loader → frame → relay → simulator) with a canary password, canary
// access tokens and a canary message: none of them may appear in a relay log line, an error body, a URL the browser
// requested, browser storage or cookies, or an analytics beacon; the built bundles hold no credential or token. The
// conversation handle, which the frame does keep, appears in no URL, log line, error body or beacon either.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Frame } from 'playwright-core';
import { borrowChromium, giveBackChromium, serveHostPages, typeAndSend, type HostPageServer } from './harness.ts';
import { BUILT_DIST, startProduct } from '../support/product.ts';

const PASSWORD = 'CANARYPASSWORDq7Zr41';
const TOKEN_PREFIX = 'CANARYTOKENx9Lm';
const TEXT = 'CANARY-MESSAGE my tooth hurts since Tuesday 8c1f';
const CANARIES = [PASSWORD, TOKEN_PREFIX, 'CANARY-MESSAGE', encodeURIComponent(TEXT), 'tooth hurts since Tuesday'];

let browser: Browser;
let product: Awaited<ReturnType<typeof startProduct>>;
let host: HostPageServer;

beforeAll(async () => {
  [browser, product] = await Promise.all([
    borrowChromium(),
    startProduct({
      // The failed send's retry comes back when the relay can decide on it (SEND_SETTLE_MS, never less than twice
      // UPSTREAM_TIMEOUT_MS plus 1 s): sooner than in production, since the simulator answers in milliseconds.
      environment: { UPSTREAM_TIMEOUT_MS: '2000', SEND_SETTLE_MS: '0' },
      simulator: { password: PASSWORD, accessTokenPrefix: TOKEN_PREFIX },
    }),
  ]);
  // demo-analytics has a GA4 tag id, so the panel sends its beacons; it allows localhost and 127.0.0.1, which are
  // different sites: the page on one, the relay on the other.
  host = await serveHostPages({
    '/': `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Practice</title></head><body><h1>Practice</h1>
<script async src="http://localhost:${new URL(product.relayUrl).port}/loader.js" data-client-id="demo-analytics" data-locale="en"></script></body></html>`,
  });
});
afterAll(async () => {
  await Promise.all([giveBackChromium(browser), product?.close(), host?.close()]);
});

function leaks(where: string, text: string): string[] {
  return CANARIES.filter((canary) => text.includes(canary)).map((canary) => `${where}: ${canary}`);
}

function builtFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? builtFiles(path) : [path];
  });
}

describe("canaries never leave the relay's upstream client", () => {
  it('the password, the access tokens and the message text appear in no log, error body, URL, storage, cookie or beacon', async () => {
    const context = await browser.newContext();
    const requested: string[] = [];
    const beacons: string[] = [];
    const bodies: string[] = [];
    /** Every handle the relay minted in this run, and the Authorization headers of the calls on a conversation. */
    const handles: string[] = [];
    const authorizations: Array<Promise<string | undefined>> = [];
    context.on('request', (request) => {
      requested.push(`${request.method()} ${request.url()}`);
      if (request.url().startsWith('https://www.google-analytics.com/'))
        beacons.push(`${request.url()} ${request.postData() ?? ''}`);
      if (request.url().includes('/v1/conversation/') || request.url().endsWith('/v1/conversation')) {
        authorizations.push(request.allHeaders().then((headers) => headers.authorization));
      }
    });
    context.on('response', async (response) => {
      if (!response.url().includes(`:${new URL(product.relayUrl).port}/v1/`)) return;
      if (response.status() >= 400) bodies.push(await response.text().catch(() => ''));
      if (response.status() === 201 && new URL(response.url()).pathname === '/v1/conversations') {
        handles.push(((await response.json()) as { conversation: string }).conversation);
      }
    });
    // Beacons are answered here, so the run needs no outside network; they are recorded above either way.
    await context.route('https://www.google-analytics.com/**', (route) => route.fulfill({ status: 204 }));
    const page = await context.newPage();
    try {
      await page.goto(`${host.url}/`);
      await page.locator('practice-chat-q7x button').click();
      let frame: Frame = (await (await page.locator('practice-chat-q7x iframe').elementHandle())!.contentFrame())!;
      await typeAndSend(frame, TEXT);
      await expect.poll(() => frame.locator('.message.bot').count(), { timeout: 10_000 }).toBeGreaterThan(0);
      // Error paths too: upstream failing while the message is sent, and every token revoked.
      product.simulator.faults.set({ errorRate: 1, match: /messages\/$/ });
      await typeAndSend(frame, `${TEXT} again`);
      await expect.poll(() => bodies.length, { timeout: 10_000 }).toBeGreaterThan(0);
      product.simulator.faults.reset();
      product.simulator.revokeAllTokens();
      await expect
        .poll(() => frame.locator('.message.visitor').last().innerText(), { timeout: 20_000 })
        .not.toMatch(/Sending|retrying|Not sent/i);
      await frame.getByRole('button', { name: 'Talk to a person' }).click();
      await page.reload();
      await page.locator('practice-chat-q7x button').click();
      frame = (await (await page.locator('practice-chat-q7x iframe').elementHandle())!.contentFrame())!;
      await expect.poll(() => frame.locator('.messages').innerText(), { timeout: 10_000 }).toMatch(/CANARY-MESSAGE/);
      await expect.poll(() => beacons.length, { timeout: 10_000 }).toBeGreaterThan(0);

      const storage = async (target: Frame) =>
        target.evaluate(() =>
          JSON.stringify({ session: { ...sessionStorage }, local: { ...localStorage }, cookie: document.cookie }),
        );
      const found = [
        ...product.logLines.flatMap((line) => leaks('relay log', line)),
        ...bodies.flatMap((body) => leaks('error body', body)),
        ...requested.flatMap((url) => leaks('requested URL', url)),
        ...beacons.flatMap((beacon) => leaks('analytics beacon', beacon)),
        ...leaks('frame storage', await storage(frame)),
        ...leaks('page storage', await storage(page.mainFrame())),
        ...leaks('cookies', JSON.stringify(await context.cookies())),
      ];
      expect(found).toEqual([]);
      // The handle: in no URL the browser requested (proxies log URLs), no log line, error body or beacon. It did
      // travel, in the Authorization header of every call the panel made on the conversation.
      expect(handles.length).toBeGreaterThan(0);
      const everywhere = [...requested, ...product.logLines, ...bodies, ...beacons];
      expect(handles.flatMap((handle) => everywhere.filter((text) => text.includes(handle)))).toEqual([]);
      const sent = await Promise.all(authorizations);
      expect(sent.length).toBeGreaterThan(3);
      expect(sent.filter((header) => !handles.some((handle) => header === `Bearer ${handle}`))).toEqual([]);
      // The scan itself can see a leak (positive control), and the upstream really saw the canary text.
      expect(leaks('control', `x ${TEXT} ${TOKEN_PREFIX}abc ${PASSWORD}`)).toHaveLength(CANARIES.length - 1);
      expect([...product.simulator.store.messages.values()].flat().some((message) => message.text === TEXT)).toBe(true);
      // The run did exercise what it claims: logs, an error body, beacons, and the canary token upstream.
      expect(product.logLines.length).toBeGreaterThan(5);
      expect(bodies.some((body) => body.includes('"error"'))).toBe(true);
      expect(product.simulator.counters.tokenRequests).toBeGreaterThanOrEqual(2);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('the built bundles hold no credential, token or upstream address', () => {
    const found = builtFiles(BUILT_DIST).flatMap((path) => {
      const text = readFileSync(path, 'utf8');
      return [
        'demo-password',
        'demo@practice.example',
        PASSWORD,
        TOKEN_PREFIX,
        'access_token',
        'refresh_token',
        'oauth/token',
        'UPSTREAM_PASSWORD',
        'HANDLE_SECRET',
      ]
        .filter((needle) => text.includes(needle))
        .map((needle) => `${path}: ${needle}`);
    });
    expect(builtFiles(BUILT_DIST).length).toBeGreaterThan(3);
    expect(found).toEqual([]);
  });

  it('the only Bearer in the built bundles is the panel sending its conversation handle', () => {
    // The upstream token's `Bearer` stays in the relay; the frame's transport has exactly one: the handle's header.
    const bearers = builtFiles(BUILT_DIST)
      .filter((path) => /\.(js|html|css)$/.test(path))
      .flatMap((path) => [...readFileSync(path, 'utf8').matchAll(/Bearer /g)].map(() => path.slice(BUILT_DIST.length)));
    expect(bearers).toHaveLength(1);
    expect(bearers[0]).toMatch(/^\/assets\/frame-[\w-]+\.js$/);
  });
});
