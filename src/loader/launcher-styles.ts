// The launcher's styles, inside its shadow root. `:host` rules are !important because, for !important declarations,
// the shadow tree beats the page (CSS Scoping): a hostile `* { all: unset }` or `practice-chat { display: none
// !important }` on the page cannot move or hide the host element. Values come from the parsed configuration only.
import type { WebchatConfiguration } from '../shared/configuration.ts';
import { readableTextOn } from '../shared/contrast.ts';

export function launcherCss({ icon_color, icon_opacity }: WebchatConfiguration): string {
  const glyph = readableTextOn(icon_color);
  return (
    // `all:initial!important` resets every property the page could set on the host element, at the shadow's priority.
    ':host{all:initial!important;position:fixed!important;right:20px!important;bottom:20px!important;z-index:2147483647!important}' +
    `button{all:initial;position:relative;display:grid;place-items:center;width:56px;height:56px;border-radius:50%;` +
    `background:${icon_color};color:${glyph};opacity:${icon_opacity / 100};cursor:pointer;box-shadow:0 2px 9px #0006}` +
    // Fully opaque on hover and keyboard focus, so a faint launcher is still findable; a two-tone ring shows on any page.
    'button:hover,button:focus-visible{opacity:1}button:focus-visible{outline:3px solid #fff;box-shadow:0 0 0 6px #111}' +
    'img{width:40px;height:40px;border-radius:50%}svg{width:28px;fill:currentColor}' +
    'span{position:absolute;top:-4px;right:-4px;padding:0 6px;border-radius:9px;background:#b91c1c;color:#fff;font:700 12px/18px sans-serif}' +
    '[hidden],iframe{display:none}' +
    ':host([data-open]) iframe{display:block;position:fixed;right:20px;bottom:88px;width:380px;height:min(640px,100vh - 108px);border:0;border-radius:12px;box-shadow:0 8px 30px #0005}' +
    // Small screens: the panel is the whole visual viewport (its height follows the mobile keyboard, set from script).
    '@media (max-width:480px){:host([data-open]) iframe{top:0;left:0;width:100vw;height:100vh;border-radius:0}}'
  );
}
