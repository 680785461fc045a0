// Headless Chromium through playwright-core, launched as users have it, for the browser tests and the benches alike
// (test/browser/harness.ts, bench/).
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

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

/**
 * Chromium's own address-bar popups, which it now draws as WebUI pages (chrome://omnibox-popup.top-chrome/): every
 * new window (each test's context and page) starts them in a renderer process of their own, whether or not the window
 * has an address bar to show them in, and that renderer's start was most of a new window's CPU in the tests. A
 * headless browser never shows them, and no page or frame can see them: the web content the tests look at is the same.
 */
export const HEADLESS_UNSEEN_FEATURES = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup'] as const;

/**
 * Processes Chromium starts that no page can see, which a test run's browsers go without
 * (test/browser/shared-chromium.ts) and the benches keep, since they time what users get. A spare renderer, started
 * ahead for a context's next tab: a test's context closes before it needs one, so each was started for nothing. A GPU
 * process of its own, which under --disable-gpu only composites in software: a thread of the browser process does the
 * same without the messages between processes. What they cost the suite is in bench/results.md.
 */
const TEST_RUN_UNSEEN_FEATURES = ['SpareRendererForSitePerProcess'] as const;
const TEST_RUN_SWITCHES = ['--in-process-gpu'] as const;

const PLAYWRIGHT_DISABLE_FEATURES_SWITCH = `--disable-features=${PLAYWRIGHT_DISABLED_FEATURES.join(',')}`;
const disableFeaturesSwitch = (forTestRun: boolean) =>
  `--disable-features=${[
    ...PLAYWRIGHT_DISABLED_FEATURES.filter((name) => name !== 'ThirdPartyStoragePartitioning'),
    ...HEADLESS_UNSEEN_FEATURES,
    ...(forTestRun ? TEST_RUN_UNSEEN_FEATURES : []),
  ].join(',')}`;

/**
 * `extraArgs`: more Chromium switches, for a bench that needs one (bench/first-open.ts). `forTestRun`: without the
 * processes above, for the browser tests, which start many short-lived tabs.
 */
export async function launchBrowser(
  extraArgs: readonly string[] = [],
  { forTestRun = false }: { forTestRun?: boolean } = {},
): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    // ignoreDefaultArgs matches whole arguments: if an upgrade of playwright-core changes its list, this no longer
    // matches, and test/unit/browser-harness checks the list above against the installed playwright-core.
    ignoreDefaultArgs: [PLAYWRIGHT_DISABLE_FEATURES_SWITCH],
    args: [
      ...CHROMIUM_FLAGS,
      disableFeaturesSwitch(forTestRun),
      ...(forTestRun ? TEST_RUN_SWITCHES : []),
      ...extraArgs,
    ],
  });
}

/** A fresh context and page; the caller closes the context. Console lines are collected for assertions. */
export async function openPage(
  browser: Browser,
): Promise<{ context: BrowserContext; page: Page; consoleLines: string[] }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const consoleLines: string[] = [];
  page.on('console', (message) => consoleLines.push(message.text()));
  return { context, page, consoleLines };
}
