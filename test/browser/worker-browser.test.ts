// The browser a test worker lends to its files (worker-browser.ts): a browser that goes away, killed or closed by a
// file, fails the next borrow with the reason, rather than handing out a dead browser whose every call would wait out
// its own time limit; the borrow after that launches a new one. A lender of its own here, so the worker's shared
// browser, which other files borrow, is left alone.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchTestChromium } from './harness.ts';
import { lentPerWorker } from './worker-browser.ts';

/** The process ids of this process's children whose command line starts with Chromium's. */
function chromiumChildren(): Set<number> {
  const found = new Set<number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const parent = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.split(' ')[1];
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (Number(parent) === process.pid && /chrom/.test(command.split('\0')[0] ?? '')) found.add(Number(entry));
    } catch {
      // A process that ended while it was read.
    }
  }
  return found;
}

const goneAway = (browser: Browser) => new Promise<void>((resolve) => browser.once('disconnected', () => resolve()));

describe('a browser lent per worker', () => {
  it('that crashed fails the next borrow with the reason, and the borrow after gets a new browser', async () => {
    const before = chromiumChildren();
    const borrow = lentPerWorker('Chromium', launchTestChromium);
    const first = await borrow();
    try {
      expect(await borrow()).toBe(first);
      const launched = [...chromiumChildren()].filter((pid) => !before.has(pid));
      expect(launched).toHaveLength(1);
      const gone = goneAway(first);
      process.kill(launched[0]!, 'SIGKILL');
      await gone;
      await expect(borrow()).rejects.toThrow('the shared Chromium of this test worker went away');
      const second = await borrow();
      try {
        expect(second).not.toBe(first);
        const page = await second.newPage();
        expect(await page.evaluate(() => 1 + 1)).toBe(2);
      } finally {
        await second.close();
      }
    } finally {
      await first.close().catch(() => undefined);
    }
  });

  it('that a file closed fails the next borrow too', async () => {
    const borrow = lentPerWorker('Chromium', launchTestChromium);
    const browser = await borrow();
    await browser.close();
    await expect(borrow()).rejects.toThrow('went away (it crashed, or a file closed it)');
    const again = await borrow();
    expect(again.isConnected()).toBe(true);
    await again.close();
  });
});
