// The launcher's styles, inside its shadow root. `:host` rules are !important because, for !important declarations,
// the shadow tree beats the page (CSS Scoping): a hostile `* { all: unset }` or `html > * { display: none
// !important }` on the page cannot move or hide the host element. The colours were checked against a strict hex
// pattern and the opacity is a number (src/loader/fetch-configuration.ts), so nothing here can end a declaration.
// The z-index is one below the highest: a consent banner at the highest, as consent managers put theirs, stays above
// the launcher and the panel, so that a visitor can always answer it; anything else of the page's stays below.
import type { LauncherLook } from '../shared/launcher-look.ts';

export const launcherCss = ({ background, color, opacity }: LauncherLook): string =>
  // `all:initial!important` resets every property the page could set on the host element, at the shadow's priority.
  // The inline inset is logical, resolved by the host's own `dir`: the bottom-right corner, or bottom-left for a
  // right-to-left language (the host's writing mode is reset to horizontal, so the block end is the bottom). The
  // zoom undoes the page's: boot.ts sets --zoom on the host, the inverse of <html>'s effective zoom, where the host's
  // own value beats any the page has for a property of that name.
  ':host{all:initial!important;zoom:var(--zoom)!important;position:fixed!important;bottom:20px!important;inset-inline-end:20px!important;z-index:2147483646!important}' +
  `button{all:initial;display:grid;place-items:center;width:56px;height:56px;border-radius:50%;background:${background};color:${color};opacity:${opacity};cursor:pointer;box-shadow:0 2px 9px #0006}` +
  // Fully opaque on hover and keyboard focus, so a faint launcher is still findable; a two-tone ring shows on any page.
  'button:hover,button:focus-visible{opacity:1}button:focus-visible{outline:3px solid #fff;box-shadow:0 0 0 6px #111}' +
  // Forced colours (Windows High Contrast) drop the background and the shadow that draw the button's edge.
  '@media (forced-colors:active){button{border:1px solid}}' +
  'img{width:40px;height:40px;border-radius:50%}svg{width:28px;fill:currentColor}';

/**
 * The open panel beside the launcher, on a screen that is not small: set on the frame by the frame's code
 * (src/loader/frame.ts), like the badge's. The panel tells this box from a page it covers by its width and greatest
 * height (src/frame/covers-page.ts).
 */
export const CORNER_FRAME_CSS =
  'position:fixed;bottom:88px;inset-inline-end:20px;width:380px;height:min(640px,100vh - 108px);border:0;border-radius:12px;box-shadow:0 8px 30px #0005';

/**
 * The unread count's badge, hidden until the frame reports a count: its style is set on it by the frame's code
 * (src/loader/frame.ts), which is there before any count is, so loader.js carries none of it. A style property, not
 * an attribute, which a page's CSP may refuse. Placed against the host element, which is exactly the button's box.
 */
export const BADGE_CSS =
  'position:absolute;top:-4px;inset-inline-end:-4px;padding:0 6px;border-radius:9px;background:#b91c1c;color:#fff;font:700 12px/18px sans-serif';
// The frame's place and size are styled by its own code (src/loader/frame.ts), which only a patient who comes near the
// chat downloads.

/** Where the panel fills the viewport instead of sitting in the corner (src/frame/covers-page.ts knows the numbers). */
export const SMALL_SCREEN = '(max-width:480px),(max-height:480px)';
