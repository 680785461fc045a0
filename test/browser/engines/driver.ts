// The thin interface the patient's tests drive a browser through, so one test file runs in Chromium (playwright-core),
// Firefox (puppeteer-core over WebDriver BiDi) and WebKitGTK (classic W3C WebDriver). Everything a test does goes
// through real input: pointer clicks at an element's centre and key presses to whatever has focus, as a patient's
// browser receives them; evaluate() only reads.

export type EngineName = 'chromium' | 'firefox' | 'webkit';

export interface TabOptions {
  /** CSS pixels; WebKitGTK's window cannot be narrower than about 447 px, so read the real width from the page. */
  width?: number;
  height?: number;
}

/**
 * Where a click lands: the launcher in the page (inside its shadow root), or an element in the chat frame by CSS
 * selector, or a button in the chat frame by its visible text, or an element of the page itself (a link) by CSS
 * selector.
 */
export type Target = { launcher: true } | { css: string } | { button: string } | { inPage: string };
/** A click in the chat frame. */
export type FrameTarget = Exclude<Target, { launcher: true } | { inPage: string }>;

export interface Tab {
  goto(url: string): Promise<void>;
  reload(): Promise<void>;
  /** Runs a function in the practice's page. Arguments and result must be JSON. */
  evaluate<R, A extends unknown[]>(fn: (...args: A) => R | Promise<R>, ...args: A): Promise<R>;
  /** Runs a function in the chat frame (which must exist). */
  evaluateInFrame<R, A extends unknown[]>(fn: (...args: A) => R | Promise<R>, ...args: A): Promise<R>;
  /** Runs a script (a library such as axe-core) in the chat frame, outside the frame's CSP, as test tools do. */
  injectIntoFrame(source: string): Promise<void>;
  click(target: Target): Promise<void>;
  /** Types text, one key at a time, into whatever has focus. */
  type(text: string): Promise<void>;
  press(key: 'Enter' | 'Escape' | 'Tab' | 'Shift+Tab'): Promise<void>;
  screenshot(path: string): Promise<void>;
  close(): Promise<void>;
}

export interface Engine {
  name: EngineName;
  /**
   * A new tab with its own sessionStorage (the frame's only storage). In Chromium and Firefox it is also a profile of
   * its own; WebKit's tabs are windows of one session, which share localStorage, cookies and the HTTP cache.
   */
  newTab(options?: TabOptions): Promise<Tab>;
  /**
   * Closes the tabs this engine opened. Chromium and Firefox stay running: each is the test worker's one browser of
   * its kind, lent to every file (worker-browser.ts); WebKit's session and processes end here.
   */
  close(): Promise<void>;
}

/** A function as source text, called with JSON arguments: how WebDriver and BiDi take scripts. */
export function callSource(fn: (...args: never[]) => unknown): string {
  return `(${fn.toString()})`;
}

export const buttonXPath = (text: string) => `//button[normalize-space(.)=${JSON.stringify(text)}]`;
