// The language the patient picked in the panel, kept in the practice's page so that the launcher and the frame greet
// them in it on every later page of the site, after a reload and on a later visit, until they pick again. Only the
// language code is kept, never anything the patient wrote, in the page's IndexedDB (which every script of the page can
// read): unlike localStorage, whose first read in a page makes the page's main thread wait for the browser while the
// page is loading, IndexedDB answers without blocking it. A visitor who never picked gets no data: reading undoes the
// making of a database that is not there (WebKit keeps its name, empty, at version 0). Storage can be blocked (a
// visitor's setting, some private modes): then the choice lasts as long as the page.
import { languageTag } from '../shared/language-tag.ts';

const DATABASE = 'practice-chat';
const KEY = 'locale';
/** Storage that never answers (it happens) keeps the launcher waiting no longer than this: then there is no pick. */
export const PICK_WAIT_MS = 500;

/**
 * With a code: keeps it. Without: the code picked earlier on this site, parsed like any other input (any script of the
 * page may write it), or ''. Never rejects, and settles within PICK_WAIT_MS.
 */
export function chosenLanguage(win: Window, picked?: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    win.setTimeout(resolve, PICK_WAIT_MS, '');
    // Version 1 always: the version that has the store, whether this call makes it or finds it.
    const opening = win.indexedDB.open(DATABASE, 1);
    // No database yet: made to keep a pick; when only reading, its making is undone.
    opening.onupgradeneeded = () =>
      picked ? opening.result.createObjectStore(DATABASE) : opening.transaction!.abort();
    opening.onerror = reject;
    opening.onsuccess = () => {
      const database = opening.result;
      // A database of the same name that a script of the page made otherwise throws here: no pick, and nothing
      // thrown into the page.
      try {
        // Read-write to read as well: one mode costs the loader fewer bytes, and the lock is held for one key.
        const store = database.transaction(DATABASE, 'readwrite').objectStore(DATABASE);
        const done: IDBRequest = picked ? store.put(picked, KEY) : store.get(KEY);
        done.onsuccess = () => resolve(languageTag(done.result));
        done.onerror = reject;
      } catch {
        resolve('');
      }
      // Closed at once: the connection goes when its one request is done, and blocks no upgrade by the page.
      database.close();
    };
  }).catch(() => '');
}
