// What a screen reader says through a whole conversation, read by a virtual screen reader
// (@guidepup/virtual-screen-reader) running inside the chat frame on a practice page with the relay on another site:
// it computes roles, names and live-region speech from the DOM as screen readers do, and keeps the phrases it spoke.
// The frame's CSP allows only its own scripts, so the library is run as test tools run axe-core: as an expression
// through the DevTools protocol (Tab.injectIntoFrame), which the page's CSP does not govern. The patient's actions
// are real clicks and key presses. Chromium only (npm test runs the whole browser suite there); what enters the live
// regions is recorded in all three engines by accessibility.test.ts.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, type ExpectStatic, it } from 'vitest';
import { serveHostPages, type HostPageServer } from './harness.ts';
import { launchEngine, type Engine, type Tab } from './engines/index.ts';
import { startProduct } from '../support/product.ts';
import { CATALOGS } from '../../src/shared/locales/catalogs.ts';

const LOCALES = ['en', 'ar'] as const;
type Locale = (typeof LOCALES)[number];

/**
 * A relay, simulator and practice page of its own for each language: the languages' conversations run side by side
 * (each waits mostly on the panel's retries), and the upstream failure one of them injects must not reach the other.
 */
interface Site {
  product: Awaited<ReturnType<typeof startProduct>>;
  host: HostPageServer;
}

let engine: Engine;
const sites = new Map<Locale, Site>();

const hostPage = (relay: string, locale: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Smile Dental</title></head>
<body><main><h1>Smile Dental</h1><a href="/services">Our services</a></main>
<script async src="${relay}/loader.js" data-client-id="smile-dental" data-locale="${locale}"></script></body></html>`;

/**
 * How long after a send that failed upstream with a 5xx the relay waits before it decides (SEND_SETTLE_MS, never less
 * than twice UPSTREAM_TIMEOUT_MS plus 1 s): the failed send's first retry is told to come back then. Shorter than in
 * production, where the service may take seconds; the simulator answers in milliseconds.
 */
const QUICK_SETTLING = { UPSTREAM_TIMEOUT_MS: '2000', SEND_SETTLE_MS: '0' };

async function startSite(locale: Locale): Promise<Site> {
  const product = await startProduct({
    relayHost: 'chat.vendor-relay.test',
    environment: QUICK_SETTLING,
    simulator: { agentJoinDelayMs: 300 },
  });
  const relay = `http://chat.vendor-relay.test:${new URL(product.relayUrl).port}`;
  const host = await serveHostPages({ [`/${locale}`]: () => ({ body: hostPage(relay, locale) }) });
  return { product, host };
}

/**
 * The library's browser bundle, an ES module, as a classic script that leaves it on window: the frame runs it as an
 * expression, where `export` is not allowed. The bundle ends with one export list; anything else is a new version
 * this rewrite does not know, and fails here rather than in the frame.
 */
function virtualScreenReaderScript(): string {
  const file = createRequire(import.meta.url).resolve('@guidepup/virtual-screen-reader/browser.js');
  const source = readFileSync(file, 'utf8');
  const exports = [...source.matchAll(/export\s*\{([^}]*)\};?/g)];
  if (exports.length !== 1) throw new Error(`expected one export list in ${file}, found ${exports.length}`);
  const entries = exports[0]![1]!.split(',').map((entry) => {
    const [local, exported = local] = entry.trim().split(/\s+as\s+/);
    return `${JSON.stringify(exported)}: ${local}`;
  });
  return `(() => {${source.replace(exports[0]![0], '')}\nwindow.virtualScreenReader = {${entries.join(', ')}};})()`;
}
const LIBRARY = virtualScreenReaderScript();

beforeAll(async () => {
  [engine] = await Promise.all([
    launchEngine(),
    ...LOCALES.map(async (locale) => sites.set(locale, await startSite(locale))),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all([
    engine?.close(),
    ...[...sites.values()].flatMap(({ product, host }) => [product.close(), host.close()]),
  ]);
});

type VirtualWindow = {
  virtualScreenReader: {
    virtual: {
      start(options: { container: Element }): Promise<void>;
      spokenPhraseLog(): Promise<string[]>;
      next(): Promise<void>;
      stop(): Promise<void>;
    };
  };
};

/** Everything the virtual screen reader has spoken since it started in the frame. */
const spoken = (tab: Tab) =>
  tab.evaluateInFrame(() => (window as unknown as VirtualWindow).virtualScreenReader.virtual.spokenPhraseLog());

/**
 * The live-region phrases only ("polite: …", "assertive: …"), in the order spoken, without the bidirectional isolates
 * that keep names in their own direction (a screen reader does not voice them). The library also logs "polite: " with
 * nothing after it when an announcement's node is replaced (the region's old words removed): nothing is said then.
 */
const announced = async (tab: Tab) =>
  (await spoken(tab)).map(withoutIsolates).filter((phrase) => /^(polite|assertive): \S/.test(phrase));
const withoutIsolates = (text: string) => text.replace(/[\u2066-\u2069]/g, '');

// The helpers take the running test's own expect: expect.poll needs to know its test, and the tests run side by side.
async function openPanel(expect: ExpectStatic, tab: Tab, host: HostPageServer, path: string) {
  await tab.goto(`http://www.smile-dental.test:${host.port}${path}`);
  await expect
    .poll(
      () => tab.evaluate(() => !!document.querySelector('practice-chat-q7x')?.shadowRoot?.querySelector('button')),
      {
        timeout: 10_000,
      },
    )
    .toBe(true);
  await tab.click({ launcher: true });
  await expect
    .poll(() => tab.evaluateInFrame(() => !!document.querySelector('textarea')), { timeout: 10_000 })
    .toBe(true);
  await tab.injectIntoFrame(LIBRARY);
  await tab.evaluateInFrame(() =>
    (window as unknown as VirtualWindow).virtualScreenReader.virtual.start({ container: document.body }),
  );
}

/** Moves the virtual screen reader's cursor through the whole panel, as a patient reading it line by line does. */
async function readThrough(tab: Tab) {
  await tab.evaluateInFrame(async () => {
    const { virtual } = (window as unknown as VirtualWindow).virtualScreenReader;
    // Bounded: the panel is read in well under this many steps; a panel that never ends fails the test's check.
    for (let step = 0; step < 200; step++) {
      await virtual.next();
      if ((await virtual.spokenPhraseLog()).at(-1) === 'end of document') return;
    }
  });
}

async function send(expect: ExpectStatic, tab: Tab, text: string) {
  await tab.click({ css: 'textarea' });
  await tab.type(text);
  await expect.poll(() => tab.evaluateInFrame(() => document.querySelector('textarea')!.value)).toBe(text);
  await tab.press('Enter');
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const count = (phrases: string[], wanted: string) =>
  phrases.filter((phrase) => withoutIsolates(phrase) === wanted).length;

describe.concurrent('a conversation as a virtual screen reader speaks it, in Chromium', { timeout: 120_000 }, () => {
  for (const locale of LOCALES) {
    it(`${locale}: the greeting, a reply, Talk to a person, a failed send and End chat, each said once`, async ({
      expect,
    }) => {
      const strings = CATALOGS[locale];
      const { product, host } = sites.get(locale)!;
      const tab = await engine.newTab();
      try {
        await openPanel(expect, tab, host, `/${locale}`);
        await readThrough(tab);
        expect(count(await spoken(tab), strings.greeting.replace('{bot}', 'Sunny'))).toBe(1);
        expect(await announced(tab)).toEqual([]);

        // The bot is announced as automated ("Sunny (automated)"), as a team member is announced as one.
        const reply = expect.stringMatching(
          new RegExp(
            `^polite: ${escapeRegExp(strings.newMessageAnnouncement.replace('{author}', strings.botLabel.replace('{name}', 'Sunny'))).replace('\\{text\\}', '\\S')}`,
          ),
        );
        await send(expect, tab, locale === 'en' ? 'What are your opening hours?' : 'ما مواعيد العمل لديكم؟');
        await expect.poll(() => announced(tab), { timeout: 10_000 }).toEqual([reply]);

        const teamReply = expect.stringMatching(
          new RegExp(
            `^polite: ${strings.newMessageAnnouncement.replace('{author}', 'Grace.*').replace('{text}', '\\S')}`,
          ),
        );
        await tab.click({ button: strings.talkToPerson });
        await expect
          .poll(() => announced(tab), { timeout: 10_000 })
          .toEqual([reply, `polite: ${strings.escalated}`, teamReply]);

        // Every try of the send fails upstream: the panel retries on its own (said once, politely), then gives up
        // (said once, assertively).
        product.simulator.faults.set({ errorRate: 1, match: /messages\/$/ });
        try {
          await send(expect, tab, locale === 'en' ? 'Is this sent?' : 'هل أُرسلت؟');
          await expect
            .poll(() => announced(tab), { timeout: 60_000, interval: 500 })
            .toEqual([
              reply,
              `polite: ${strings.escalated}`,
              teamReply,
              `polite: ${strings.retrying}`,
              `assertive: ${strings.failed} ${strings.retry}`,
            ]);
        } finally {
          product.simulator.faults.reset();
        }

        await tab.click({ button: strings.endChat });
        await expect
          .poll(() => announced(tab), { timeout: 10_000 })
          .toEqual([
            reply,
            `polite: ${strings.escalated}`,
            teamReply,
            `polite: ${strings.retrying}`,
            `assertive: ${strings.failed} ${strings.retry}`,
            `assertive: ${strings.ended}`,
          ]);
      } finally {
        await tab.close();
      }
    });
  }
});
