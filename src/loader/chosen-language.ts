// The language the patient picked in the panel, kept in the practice's page so that the launcher and the frame greet
// them in it on every later page of the site, after a reload and on a later visit, until they pick again. Only the
// language code is kept, never anything the patient wrote, in the page's IndexedDB (which every script of the page can
// read): unlike localStorage, whose first read in a page makes the page's main thread wait for the browser while the
// page is loading, IndexedDB answers without blocking it. A visitor who never picked gets no data: a database that
// does not exist is not made by reading it. Storage can be blocked (a visitor's setting, some private modes): then the
// choice lasts as long as the page.
import { languageTag } from '../shared/protocol.ts';

const DATABASE = 'practice-chat';
const KEY = 'locale';

/**
 * With a code: keeps it. Without: the code picked earlier on this site, parsed like any other input (any script of the
 * page may write it), or ''. Never rejects; nothing waits for it (storage that never answers, which happens, keeps
 * nothing from showing).
 */
export function chosenLanguage(win: Window, picked?: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    // Version 1 always: the version that has the store, whether this call makes it or finds it.
    const opening = win.indexedDB.open(DATABASE, 1);
    // No database yet: made to keep a pick; when only reading, its making is undone.
    opening.onupgradeneeded = () =>
      picked ? opening.result.createObjectStore(DATABASE) : opening.transaction!.abort();
    opening.onerror = reject;
    opening.onsuccess = () => {
      const database = opening.result;
      const store = database.transaction(DATABASE, picked ? 'readwrite' : undefined).objectStore(DATABASE);
      const done: IDBRequest = picked ? store.put(picked, KEY) : store.get(KEY);
      // Closed once its one request is done, so that no connection of the page's outlives it.
      database.close();
      done.onsuccess = () => resolve(languageTag(done.result));
      done.onerror = reject;
    };
  }).catch(() => '');
}
