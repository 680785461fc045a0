// The language the patient picked in the panel, kept in the practice's page so that the launcher and the frame greet
// them in it on every later page of the site, after a reload and on a later visit, until they pick again. Only the
// language code is kept (localStorage, which every script of the page can read): never anything the patient wrote.
// Storage can be blocked (Safari's private mode, a visitor's setting): then the choice lasts as long as the page.
import { languageTag } from '../shared/protocol.ts';

const KEY = 'practice-chat:locale';

/**
 * With a code: keeps it. Without: the code picked earlier on this site, parsed like any other input (any script of the
 * page may write it), or ''.
 */
export function chosenLanguage(win: Window, picked?: string): string | void {
  try {
    return picked ? win.localStorage.setItem(KEY, picked) : languageTag(win.localStorage.getItem(KEY));
  } catch {
    // Blocked or full: the launcher follows a pick on its page only.
  }
}
