// The browser itself refuses to show the chat frame on a site that is not in the configuration's domains.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { borrowChromium, giveBackChromium, openPage, serveHostPages, type HostPageServer } from './harness.ts';
import { FIXTURE_DIST, startProduct } from '../support/product.ts';

let browser: Browser;
let product: Awaited<ReturnType<typeof startProduct>>;
let host: HostPageServer;

beforeAll(async () => {
  [browser, product] = await Promise.all([borrowChromium(), startProduct({ distDir: FIXTURE_DIST })]);
  host = await serveHostPages({
    '/': `<!doctype html><title>practice</title><iframe title="chat" src="${product.relayUrl}/frame?client_id=smile-dental"></iframe>`,
  });
});
afterAll(async () => {
  await Promise.all([giveBackChromium(browser), product?.close(), host?.close()]);
});

async function frameShownOn(hostName: string) {
  const { context, page, consoleLines } = await openPage(browser);
  try {
    const frameLoaded = page.waitForEvent('framenavigated', {
      predicate: (frame) => frame !== page.mainFrame(),
      timeout: 10_000,
    });
    await page.goto(`http://${hostName}:${host.port}/`);
    const frame = await frameLoaded;
    await page.waitForLoadState('load');
    const shown = await frame
      .locator('#panel')
      .count()
      .catch(() => 0);
    return { shown: shown === 1, consoleLines };
  } finally {
    await context.close();
  }
}

describe('frame-ancestors in real Chromium', () => {
  it('shows the frame on an allowed site', async () => {
    expect((await frameShownOn('www.smile-dental.test')).shown).toBe(true);
  });

  it('shows the frame on a subdomain allowed by a wildcard entry', async () => {
    expect((await frameShownOn('booking.smile-dental.test')).shown).toBe(true);
  });

  it('refuses the frame on a site that is not allowed, and says why', async () => {
    const { shown, consoleLines } = await frameShownOn('smile-dental.test.evil.test');
    expect(shown).toBe(false);
    expect(consoleLines.join('\n')).toMatch(/frame-ancestors/);
  });

  // Look-alikes of the allowed entries, all resolving to loopback like the allowed ones: only the policy stops them.
  for (const hostName of [
    'smile-dental.test',
    'evil-smile-dental.test',
    'www.smile-dental.test.evil.test',
    'wwwsmile-dental.test',
    'smile-dental.evil.test',
  ]) {
    it(`refuses the frame on the look-alike ${hostName}`, async () => {
      const { shown, consoleLines } = await frameShownOn(hostName);
      expect(shown).toBe(false);
      expect(consoleLines.join('\n')).toMatch(/frame-ancestors/);
    });
  }
});
