// Whether the panel covers the practice's page. The loader draws the panel over the whole viewport when the viewport
// is at most SMALL_SCREEN_MAX wide or tall, and otherwise in the page's corner at exactly this width and never taller
// than this height (src/loader/launcher-styles.ts); the frame cannot see the page (another origin), but it can see its
// own size. A test holds the two files to the same numbers.
export const CORNER_PANEL_WIDTH = 380;
export const CORNER_PANEL_MAX_HEIGHT = 640;
export const SMALL_SCREEN_MAX = 480;

export const coversPage = (): boolean => innerWidth !== CORNER_PANEL_WIDTH || innerHeight > CORNER_PANEL_MAX_HEIGHT;

/**
 * Moves focus to the next (Shift: the previous) control of `panel` (a modal dialog), round from its last to its first,
 * instead of the browser: at its last control the browser would leave the frame for the page hidden beneath it, and
 * WebKit's Tab skips buttons and links, so from the composer it would leave at once.
 */
export function wrapTab(event: KeyboardEvent, panel: Element): void {
  const controls = [...panel.querySelectorAll<HTMLElement>('[href],button:enabled,textarea,select,[tabindex]')];
  const index = controls.indexOf(document.activeElement as HTMLElement);
  event.preventDefault();
  // From outside the list (<body>): Tab to the first control, Shift+Tab to the last.
  controls.at(index < 0 ? (event.shiftKey ? -1 : 0) : (index + (event.shiftKey ? -1 : 1)) % controls.length)?.focus();
}
