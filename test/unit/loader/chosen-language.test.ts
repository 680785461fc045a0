// @vitest-environment happy-dom
// The patient's earlier pick of language, as the loader reads and keeps it in the page's IndexedDB (an in-memory
// implementation here, fresh for each test; test/browser/chosen-language.test.ts holds the same in three real engines).
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PracticeChatApi } from '../../../src/loader/api.ts';
import { chosenLanguage } from '../../../src/loader/chosen-language.ts';
import { smileDentalAnswer } from '../../support/configurations.ts';
import { addScriptTag, launchers, RELAY, settle, startLoader, testWindow as win } from '../../support/loader-boot.ts';

const asked = (locale: string) => `${RELAY}/v1/webchat-configuration?client_id=smile-dental&locale=${locale}`;

/** The relay's answer in `locale`: Persian is written right to left. */
const answerIn = (locale: string) => ({
  ...smileDentalAnswer,
  launcher: {
    ...smileDentalAnswer.launcher,
    label: `Chat with Sunny (${locale})`,
    locale,
    dir: locale == 'fa' ? 'rtl' : 'ltr',
  },
});

/** What a script of the page would find: the widget's database, its store and key, as written by `write`. */
function writeAsPageScript(value: unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    const opening = indexedDB.open('practice-chat', 1);
    opening.onupgradeneeded = () => opening.result.createObjectStore('practice-chat');
    opening.onerror = () => reject(opening.error);
    opening.onsuccess = () => {
      const transaction = opening.result.transaction('practice-chat', 'readwrite');
      transaction.objectStore('practice-chat').put(value, 'locale');
      transaction.oncomplete = () => (opening.result.close(), resolve());
    };
  });
}

const launcher = () => {
  const host = launchers()[0] as HTMLElement | undefined;
  return host && [host.shadowRoot!.querySelector('button')!.getAttribute('aria-label'), host.lang, host.dir];
};

beforeEach(() => {
  Object.defineProperty(window, 'indexedDB', { value: new IDBFactory(), configurable: true, writable: true });
  win().happyDOM.setURL('https://www.smile-dental.test/services');
  document.body.innerHTML = '';
  delete win().PracticeChat;
  addScriptTag('data-client-id="smile-dental" data-locale="es"');
});
afterEach(() => (win().PracticeChat as PracticeChatApi | undefined)?.destroy?.());

describe("the patient's earlier pick", () => {
  it('wins over data-locale when it is read after the answer in the tag language: the launcher is renamed', async () => {
    await writeAsPageScript('fa');
    const { requests, reports } = startLoader({ answer: answerIn });
    await settle();
    expect(requests).toEqual([asked('es'), asked('fa')]);
    expect([launchers().length, launcher(), reports]).toEqual([1, ['Chat with Sunny (fa)', 'fa', 'rtl'], []]);
  });

  it('wins over data-locale when it is read before the answer in the tag language: that answer is dropped', async () => {
    await writeAsPageScript('fa');
    let release!: () => void;
    const { requests } = startLoader({ answer: answerIn, gate: new Promise<void>((resolve) => (release = resolve)) });
    // Both requests are out before either answer comes back.
    await expect.poll(() => requests).toEqual([asked('es'), asked('fa')]);
    release();
    await settle();
    expect([launchers().length, launcher()]).toEqual([1, ['Chat with Sunny (fa)', 'fa', 'rtl']]);
  });

  it('is ignored when it is not a language code (any page script may write it)', async () => {
    await writeAsPageScript('"><img src=x>');
    const { requests } = startLoader({ answer: answerIn });
    await settle();
    expect([requests, launcher()]).toEqual([[asked('es')], ['Chat with Sunny (es)', 'es', 'ltr']]);
  });

  it('is asked for no more when it is the language of the tag', async () => {
    await writeAsPageScript('es');
    const { requests } = startLoader({ answer: answerIn });
    await settle();
    expect(requests).toEqual([asked('es')]);
  });

  it('is kept when the patient picks in the panel, and read back by the next page', async () => {
    await chosenLanguage(window, 'fa');
    expect(await chosenLanguage(window)).toBe('fa');
    await chosenLanguage(window, 'en');
    expect(await chosenLanguage(window)).toBe('en');
  });

  it('leaves no database behind for a visitor who never picked, and writes nothing else', async () => {
    localStorage.clear();
    sessionStorage.clear();
    startLoader();
    await settle();
    (win().PracticeChat as PracticeChatApi).open();
    expect(await chosenLanguage(window)).toBe('');
    expect([await indexedDB.databases(), localStorage.length, sessionStorage.length, document.cookie]).toEqual([
      [],
      0,
      0,
      '',
    ]);
  });

  it.each([
    [
      'storage that throws (blocked storage, private modes)',
      () => {
        throw new DOMException('blocked', 'SecurityError');
      },
    ],
    ['storage that never answers', () => ({}) as IDBOpenDBRequest],
  ])('is not waited for: %s leaves the launcher in the tag language, silently', async (_what, open) => {
    Object.defineProperty(window, 'indexedDB', { value: { open }, configurable: true, writable: true });
    const { reports, requests } = startLoader({ answer: answerIn });
    await settle();
    expect([reports, requests, launcher()]).toEqual([[], [asked('es')], ['Chat with Sunny (es)', 'es', 'ltr']]);
  });
});
