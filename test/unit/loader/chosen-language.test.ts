// @vitest-environment happy-dom
// The patient's earlier pick of language, as the loader reads and keeps it in the page's IndexedDB (an in-memory
// implementation here, fresh for each test; test/browser/chosen-language.test.ts holds the same in three real engines).
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PracticeChatApi } from '../../../src/loader/api.ts';
import { chosenLanguage, PICK_WAIT_MS } from '../../../src/loader/chosen-language.ts';
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
    dir: locale === 'fa' ? 'rtl' : 'ltr',
  },
});

/** Writes `value` where the loader keeps the pick, as any script of the page could: an earlier pick, or a hostile value. */
function writeAsPageScript(value: unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    const opening = indexedDB.open('practice-chat', 1);
    opening.onupgradeneeded = () => opening.result.createObjectStore('practice-chat');
    opening.onerror = () => reject(opening.error);
    opening.onsuccess = () => {
      const transaction = opening.result.transaction('practice-chat', 'readwrite');
      transaction.objectStore('practice-chat').put(value, 'locale');
      transaction.oncomplete = () => {
        opening.result.close();
        resolve();
      };
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
  it('wins over data-locale: the first answer waits for it, and the relay is asked again in the pick', async () => {
    await writeAsPageScript('fa');
    const { requests, reports } = startLoader({ answer: answerIn });
    const shown: unknown[] = [];
    (win().PracticeChat as PracticeChatApi).on('ready', () => shown.push(launcher()));
    // Until the first launcher is shown, not a fixed time: the pick is read from IndexedDB first.
    await vi.waitFor(() => expect(shown).not.toEqual([]), 5_000);
    expect(requests).toEqual([asked('es'), asked('fa')]);
    // Shown once, in the pick: never first in the tag's language.
    expect([shown, launchers().length, reports]).toEqual([[['Chat with Sunny (fa)', 'fa', 'rtl']], 1, []]);
    // The frame, made later, is asked for in the pick too.
    (win().PracticeChat as PracticeChatApi).open();
    const frame = await vi.waitFor(() => {
      const made = launchers()[0]?.shadowRoot?.querySelector('iframe');
      if (!made) throw new Error('no frame yet');
      return made;
    }, 5_000);
    expect(new URL(frame.src).searchParams.get('locale')).toBe('fa');
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

  it('leaves a refusal at one console line', async () => {
    await writeAsPageScript('fa');
    const { requests, reports } = startLoader({ answer: () => ({ ...answerIn('fa'), domains: ['other.test'] }) });
    await settle();
    expect([requests, reports, launchers().length]).toEqual([
      [asked('es'), asked('fa')],
      ['Practice chat not shown: www.smile-dental.test is not an allowed domain'],
      0,
    ]);
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

  it("is no pick, and throws nothing into the page, where a page's own database has the same name", async () => {
    await new Promise<void>((resolve) => {
      const opening = indexedDB.open('practice-chat', 1);
      opening.onupgradeneeded = () => opening.result.createObjectStore('their-own');
      opening.onsuccess = () => {
        opening.result.close();
        resolve();
      };
    });
    const { requests, reports } = startLoader({ answer: answerIn });
    await settle();
    expect([requests, reports, launcher()]).toEqual([[asked('es')], [], ['Chat with Sunny (es)', 'es', 'ltr']]);
    expect(await chosenLanguage(window, 'fa')).toBe('');
  });

  it.each([
    [
      'storage that throws (blocked storage, private modes)',
      () => {
        throw new DOMException('blocked', 'SecurityError');
      },
    ],
    ['storage that never answers', () => ({}) as IDBOpenDBRequest],
  ])(
    'is waited for no longer than its limit: %s leaves the launcher in the tag language, silently',
    async (_what, open) => {
      Object.defineProperty(window, 'indexedDB', { value: { open }, configurable: true, writable: true });
      const { reports, requests } = startLoader({ answer: answerIn });
      await new Promise((resolve) => setTimeout(resolve, PICK_WAIT_MS + 100));
      expect([reports, requests, launcher()]).toEqual([[], [asked('es')], ['Chat with Sunny (es)', 'es', 'ltr']]);
    },
  );
});
