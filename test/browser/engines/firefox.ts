// Firefox ESR (Debian's system binary) through puppeteer-core over WebDriver BiDi, headless. Test host names resolve
// to 127.0.0.1 through network.dns.localDomains. Each tab is a page from newPage() in a browser context of its own:
// the tab Firefox starts with never gets window focus over BiDi, so keys sent there go nowhere.
import puppeteer, { type Browser, type BrowserContext, type Frame, type Page } from 'puppeteer-core';
import { lentPerWorker } from '../worker-browser.ts';
import { buttonXPath, type Engine, type FrameTarget, type Tab } from './driver.ts';

export const FIREFOX_PATH = process.env.FIREFOX_PATH || '/usr/bin/firefox-esr';

/** The host names the browser tests use; Firefox has no wildcard for them. */
export const TEST_HOST_NAMES = [
  'www.smile-dental.test',
  'chat.smile-dental.test',
  'chat.vendor-relay.test',
  'smile-dental.test',
];

/** The test worker's one Firefox (worker-browser.ts): an engine closes only the contexts of its own tabs. */
const borrowFirefox = lentPerWorker('Firefox', () =>
  puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX_PATH,
    headless: true,
    extraPrefsFirefox: {
      'network.dns.localDomains': TEST_HOST_NAMES.join(','),
      // Plain http test sites stay plain http, as they are on a developer's machine.
      'dom.security.https_first': false,
      'dom.security.https_first_schemeless': false,
    },
  }),
);

export async function launchFirefox(): Promise<Engine> {
  const browser: Browser = await borrowFirefox();
  const contexts = new Set<BrowserContext>();
  return {
    name: 'firefox',
    async newTab(options) {
      const context = await browser.createBrowserContext();
      contexts.add(context);
      const page = await context.newPage();
      await page.setViewport({ width: options?.width ?? 1280, height: options?.height ?? 900 });
      return firefoxTab(page, async () => {
        contexts.delete(context);
        await context.close();
      });
    },
    close: async () => {
      await Promise.all([...contexts].map((context) => context.close()));
      contexts.clear();
    },
  };
}

function firefoxTab(page: Page, closeContext: () => Promise<void>): Tab {
  async function chatFrame(): Promise<Frame> {
    const element = await page.$('practice-chat-q7x >>> iframe');
    const frame = await element?.contentFrame();
    if (!frame) throw new Error('no chat frame yet');
    return frame;
  }
  const selector = (target: FrameTarget) =>
    'css' in target ? target.css : `::-p-xpath(${buttonXPath(target.button)})`;
  return {
    goto: async (url) => void (await page.goto(url)),
    reload: async () => void (await page.reload()),
    evaluate: (fn, ...args) => page.evaluate(fn as never, ...(args as unknown as never[])) as never,
    evaluateInFrame: async (fn, ...args) =>
      (await chatFrame()).evaluate(fn as never, ...(args as unknown as never[])) as never,
    injectIntoFrame: async (source) => void (await (await chatFrame()).evaluate(source)),
    async click(target) {
      if ('launcher' in target) {
        // At the launcher's centre, found by the page: puppeteer's own clicks read the viewport's height from <html>,
        // which in quirks mode is only as tall as the page's content, and wait forever to scroll the launcher, fixed
        // below it, into view.
        const [x, y] = await page.evaluate(() => {
          const box = document.querySelector('practice-chat-q7x')!.shadowRoot!.querySelector('button')!;
          const { left, top, width, height } = box.getBoundingClientRect();
          return [left + width / 2, top + height / 2];
        });
        return void (await page.mouse.click(x!, y!));
      }
      if ('inPage' in target) return void (await page.locator(target.inPage).click());
      await (await chatFrame()).locator(selector(target)).click();
    },
    type: (text) => page.keyboard.type(text),
    async press(key) {
      if (key !== 'Shift+Tab') return page.keyboard.press(key);
      await page.keyboard.down('Shift');
      await page.keyboard.press('Tab');
      await page.keyboard.up('Shift');
    },
    screenshot: async (path) => void (await page.screenshot({ path: path as `${string}.png` })),
    close: closeContext,
  };
}
