// While the panel covers the practice's page (a small screen, SMALL_SCREEN), the page behind it is inert, and so is the
// launcher under it: a screen reader's reading and the browser's Tab stay in the panel, as in a modal dialog, and
// pointers cannot reach what the patient cannot see. `inert` is what Chromium, Firefox and WebKit all take out of their
// accessibility trees (aria-modal alone is not: Chromium on Linux keeps the page behind, which Orca then reads). Only
// elements found not inert are marked, and exactly those are unmarked, so the page's own use of `inert` survives.
import { SMALL_SCREEN } from './launcher-styles.ts';

/** Returns a function told whether the panel is open; it watches the screen's size only while the panel is open. */
export function pageBehind(win: Window, host: Element, launcherButton: HTMLElement): (open: boolean) => void {
  const small = win.matchMedia(SMALL_SCREEN);
  let open = false;
  let marked: HTMLElement[] = [];
  const update = () => {
    for (const element of marked) element.inert = false;
    marked =
      open && small.matches
        ? [...(win.document.body.children as HTMLCollectionOf<HTMLElement>), launcherButton].filter(
            (element) => element != host && !element.inert,
          )
        : [];
    for (const element of marked) element.inert = true;
  };
  return (next) => {
    open = next;
    // A phone turned, a window resized: the panel may start or stop covering the page while it is open.
    small.onchange = next ? update : null;
    update();
  };
}
