// Chromium through playwright-core, launched as users have it (storage partitioning on: harness.ts): the test worker's
// shared browser (shared-chromium.ts), in which an engine closes only the contexts of its own tabs, since tests of one
// file may hold engines side by side.
import type { BrowserContext, Frame, Page } from 'playwright-core';
import { borrowChromium } from '../harness.ts';
import { buttonXPath, callSource, type Engine, type Tab } from './driver.ts';

const call = (fn: (...args: never[]) => unknown, args: unknown[]) => `${callSource(fn)}(...${JSON.stringify(args)})`;

export async function launchChromium(): Promise<Engine> {
  const browser = await borrowChromium();
  const contexts = new Set<BrowserContext>();
  return {
    name: 'chromium',
    async newTab(options) {
      const context = await browser.newContext({
        viewport: { width: options?.width ?? 1280, height: options?.height ?? 900 },
      });
      contexts.add(context);
      context.on('close', () => contexts.delete(context));
      return chromiumTab(await context.newPage(), () => context.close());
    },
    close: async () => {
      await Promise.all([...contexts].map((context) => context.close()));
    },
  };
}

function chromiumTab(page: Page, closeContext: () => Promise<void>): Tab {
  async function chatFrame(): Promise<Frame> {
    const element = await page.$('practice-chat-q7x iframe');
    // Playwright finds no content frame for an iframe in an XHTML page: the page's frame at the iframe's address then.
    const src = await element?.getAttribute('src');
    const frame = (await element?.contentFrame()) ?? page.frames().find((candidate) => candidate.url() === src);
    if (!frame) throw new Error('no chat frame yet');
    return frame;
  }
  return {
    goto: async (url) => void (await page.goto(url)),
    reload: async () => void (await page.reload()),
    // As an expression: the DevTools protocol runs it outside the page's CSP (the frame allows no eval).
    evaluate: (fn, ...args) => page.evaluate(call(fn, args)) as never,
    evaluateInFrame: async (fn, ...args) => (await chatFrame()).evaluate(call(fn, args)) as never,
    injectIntoFrame: async (source) => void (await (await chatFrame()).evaluate(source)),
    async click(target) {
      if ('launcher' in target) return page.locator('practice-chat-q7x button').click();
      if ('inPage' in target) return page.locator(target.inPage).first().click();
      const frame = await chatFrame();
      await ('css' in target
        ? frame.locator(target.css).first()
        : frame.locator(`xpath=${buttonXPath(target.button)}`)
      ).click();
    },
    type: (text) => page.keyboard.type(text),
    press: (key) => page.keyboard.press(key),
    screenshot: async (path) => void (await page.screenshot({ path })),
    close: closeContext,
  };
}
