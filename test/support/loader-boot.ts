// The loader booted in a happy-dom page, for the loader's unit tests: its script tag, and a boot whose configuration
// requests are recorded and answered from the test (at once, or when the test lets them through).
import { createChatFrame } from '../../src/loader/frame.ts';
import { boot, type BootEnvironment } from '../../src/loader/boot.ts';
import { smileDentalAnswer } from './configurations.ts';

export const RELAY = 'https://relay.example';

export type TestWindow = Window & { PracticeChat?: unknown; happyDOM: { setURL(url: string): void } };
export const testWindow = () => window as unknown as TestWindow;

/**
 * Adds the loader's tag and makes it `document.currentScript`, as a browser does while the tag's script first runs.
 * type=text/plain: the test environment must not try to fetch it; the loader only reads its attributes.
 */
export function addScriptTag(attributes = 'data-client-id="smile-dental"') {
  document.body.insertAdjacentHTML(
    'beforeend',
    `<script type="text/plain" src="${RELAY}/loader.js" ${attributes}></script>`,
  );
  runAsCurrentScript(document.body.lastElementChild as HTMLScriptElement);
}

/** The document answers `script` as its currentScript from now on (happy-dom runs no script to set it). */
export function runAsCurrentScript(script: HTMLScriptElement | null) {
  Object.defineProperty(document, 'currentScript', { configurable: true, value: script });
}

export interface StartOptions {
  /** The answer to each request, by the locale it asks for (or one answer for all). */
  answer?: unknown | ((locale: string) => unknown);
  status?: number;
  loadFrame?: BootEnvironment['loadFrame'];
  /** Holds each answer until it resolves. */
  gate?: Promise<unknown>;
}

export function startLoader({
  answer = smileDentalAnswer,
  status = 200,
  loadFrame = async () => createChatFrame,
  gate,
}: StartOptions = {}) {
  const reports: string[] = [];
  const requests: string[] = [];
  boot({
    win: testWindow(),
    fetch: (async (input: RequestInfo | URL) => {
      requests.push(String(input));
      const locale = new URL(String(input)).searchParams.get('locale') ?? '';
      await gate;
      const body = typeof answer === 'function' ? (answer as (locale: string) => unknown)(locale) : answer;
      return new Response(JSON.stringify(body), { status });
    }) as typeof fetch,
    wait: async () => {},
    report: (line) => reports.push(line),
    loadFrame,
  });
  return { reports, requests };
}

export const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
export const launchers = () => document.querySelectorAll('practice-chat');
