// The browser test harness: real headless Chromium through playwright-core, and real HTTP servers on 127.0.0.1 for
// host pages (Chromium blocks loopback requests from pages faked with page.route(), so pages are really served).
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const CHROMIUM_PATH = process.env.CHROME_PATH || '/usr/bin/chromium';

const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  // Real-looking practice host names (www.smile-dental.test) resolve to loopback, so allowed and disallowed origins
  // can be tested without any outside network.
  '--host-resolver-rules=MAP *.test 127.0.0.1',
];

/**
 * Playwright's own `--disable-features` list (playwright-core 1.65.1, lib/coreBundle.js, "chromiumSwitches.ts").
 * Playwright disables ThirdPartyStoragePartitioning there (microsoft/playwright#32230). With it disabled, Chromium
 * blocks sessionStorage in a frame from another site, which no user's Chrome does: Chrome partitions third-party
 * storage by top-level site instead (https://developer.chrome.com/docs/privacy-sandbox/storage-partitioning, Chrome 115 and later).
 * Tests that run with it disabled see a browser nobody has, so we drop that one switch and pass the rest again.
 */
export const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
] as const;

const PLAYWRIGHT_DISABLE_FEATURES_SWITCH = `--disable-features=${PLAYWRIGHT_DISABLED_FEATURES.join(',')}`;
const OUR_DISABLE_FEATURES_SWITCH = `--disable-features=${PLAYWRIGHT_DISABLED_FEATURES.filter((name) => name !== 'ThirdPartyStoragePartitioning').join(',')}`;

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    // ignoreDefaultArgs matches whole arguments: if an upgrade of playwright-core changes its list, this no longer
    // matches, and test/unit/browser-harness checks the list above against the installed playwright-core.
    ignoreDefaultArgs: [PLAYWRIGHT_DISABLE_FEATURES_SWITCH],
    args: [...CHROMIUM_FLAGS, OUR_DISABLE_FEATURES_SWITCH],
  });
}

/** A fresh context and page; the caller closes the context. Console lines are collected for assertions. */
export async function openPage(browser: Browser): Promise<{ context: BrowserContext; page: Page; consoleLines: string[] }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const consoleLines: string[] = [];
  page.on('console', (message) => consoleLines.push(message.text()));
  return { context, page, consoleLines };
}

export interface HostPageServer {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Serves host pages (path → HTML) on 127.0.0.1; any unknown path is a 404. */
export async function serveHostPages(
  pages: Record<string, string | ((request: IncomingMessage) => { body: string; headers?: Record<string, string> })>,
): Promise<HostPageServer> {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://host').pathname;
    const entry = pages[path];
    if (entry === undefined) {
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    const { body, headers } = typeof entry === 'string' ? { body: entry, headers: {} } : entry(request);
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', ...headers }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Types `text` into the panel's composer and sends it, as a patient does: a click into the box, real keystrokes (or,
 * with 'paste', the whole text at once, as a paste or an IME puts it), Enter; then waits for the panel to show it as
 * the visitor's message. Keystrokes that do not arrive fail the test: issue 21 found the fallback that used to
 * dispatch an input event instead hid keystrokes really lost by patients.
 */
export async function typeAndSend(frame: import('playwright-core').Frame, text: string, how: 'type' | 'paste' = 'type'): Promise<void> {
  const textarea = frame.locator('textarea');
  await textarea.click();
  if (how === 'paste') await textarea.fill(text);
  else await textarea.pressSequentially(text);
  const typed = await textarea.inputValue();
  if (typed !== text) throw new Error(`the composer holds ${typed.length} of the ${text.length} characters typed`);
  await textarea.press('Enter');
  await frame.waitForFunction(
    (wanted) => [...document.querySelectorAll('.message.visitor .text')].some((node) => node.textContent === wanted),
    text,
    { timeout: 5_000 },
  );
}
