// The seeded configuration's logo is a real image behind a time-limited signed URL: a browser shows it while the
// signature is good and fresh, and refuses it once it has expired or been altered (what the launcher must survive).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { borrowChromium, giveBackChromium, openPage, serveHostPages, type HostPageServer } from './harness.ts';
import { startSimulatorServer } from '../../src/simulator/server.ts';

let browser: Browser;
let upstream: Awaited<ReturnType<typeof startSimulatorServer>>;
let host: HostPageServer;
let clockMs = Date.now();

beforeAll(async () => {
  [browser, upstream, host] = await Promise.all([
    borrowChromium(),
    startSimulatorServer({ port: 0, now: () => clockMs }),
    serveHostPages({ '/': '<!doctype html><title>host</title><main>practice page</main>' }),
  ]);
});

afterAll(async () => {
  await Promise.all([giveBackChromium(browser), upstream?.close(), host?.close()]);
});

async function signedLogoUrl(): Promise<string> {
  const { username, password } = upstream.simulator.seed;
  const tokenResponse = await fetch(`${upstream.url}/api/oauth/token/`, {
    method: 'POST',
    body: new URLSearchParams({ username, password }),
  });
  const { access_token } = (await tokenResponse.json()) as { access_token: string };
  const configResponse = await fetch(
    `${upstream.url}/api/conversations/webchat-configuration/?client_id=demo-client&format=json`,
    { headers: { Authorization: `Bearer ${access_token}` } },
  );
  const { logo_signed_url } = (await configResponse.json()) as { logo_signed_url: string };
  return logo_signed_url;
}

/** Puts an <img> on a real host page and reports whether the browser could decode it. */
async function browserLoadsImage(src: string): Promise<boolean> {
  const { context, page } = await openPage(browser);
  try {
    await page.goto(host.url);
    return await page.evaluate(
      (url) =>
        new Promise<boolean>((resolve) => {
          const image = new Image();
          image.onload = () => resolve(image.naturalWidth > 0);
          image.onerror = () => resolve(false);
          image.src = url;
        }),
      src,
    );
  } finally {
    await context.close();
  }
}

describe('simulator logo in a real browser', () => {
  it('shows the logo behind a fresh signed URL', async () => {
    expect(await browserLoadsImage(await signedLogoUrl())).toBe(true);
  });

  it('refuses a signed URL whose signature was altered', async () => {
    const url = new URL(await signedLogoUrl());
    const signature = url.searchParams.get('signature') ?? '';
    url.searchParams.set('signature', (signature[0] === 'a' ? 'b' : 'a') + signature.slice(1));
    expect(await browserLoadsImage(url.href)).toBe(false);
  });

  it('refuses a signed URL once it has expired', async () => {
    const url = await signedLogoUrl();
    clockMs += 24 * 60 * 60 * 1000;
    try {
      expect(await browserLoadsImage(url)).toBe(false);
    } finally {
      clockMs = Date.now();
    }
  });
});
