// The launcher: a <button> in a shadow root, built with plain DOM (no Preact, no innerHTML, so pages that enforce
// Trusted Types accept it). The host element is shown in the top layer as a manual popover where the browser has
// popovers, so no z-index on the page can cover it; elsewhere it falls back to the highest z-index.
import type { WebchatConfiguration } from '../shared/configuration.ts';
import { launcherCss } from './launcher-styles.ts';

export interface Launcher {
  host: HTMLElement;
  shadow: ShadowRoot;
  button: HTMLButtonElement;
  setUnread(count: number): void;
  setOpen(open: boolean): void;
}

const SVG = 'http://www.w3.org/2000/svg';
// A speech bubble.
const BUBBLE_PATH = 'M4 3h16a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2z';

export function mountLauncher(doc: Document, configuration: WebchatConfiguration, nonce: string, label: string): Launcher {
  const host = doc.createElement('practice-chat');
  const shadow = host.attachShadow({ mode: 'open' });
  const css = launcherCss(configuration);
  if ('adoptedStyleSheets' in shadow && typeof CSSStyleSheet === 'function' && 'replaceSync' in CSSStyleSheet.prototype) {
    // A constructed stylesheet needs no 'unsafe-inline' and no nonce under the page's CSP.
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    shadow.adoptedStyleSheets = [sheet];
  } else {
    const style = doc.createElement('style');
    style.nonce = nonce;
    style.textContent = css;
    shadow.append(style);
  }

  const button = doc.createElement('button');
  button.type = 'button';
  button.setAttribute('aria-expanded', 'false');
  button.setAttribute('aria-label', label);
  const showIcon = () => {
    const svg = doc.createElementNS(SVG, 'svg');
    svg.setAttribute('viewBox', '0 0 24 24');
    svg.setAttribute('aria-hidden', 'true');
    const path = doc.createElementNS(SVG, 'path');
    path.setAttribute('d', BUBBLE_PATH);
    svg.append(path);
    button.replaceChildren(svg, badge);
  };
  const badge = doc.createElement('span');
  badge.hidden = true;
  badge.setAttribute('aria-hidden', 'true');
  if (configuration.logo_url) {
    const logo = doc.createElement('img');
    logo.alt = '';
    logo.referrerPolicy = 'no-referrer';
    // A signed logo URL expires: fall back to the icon rather than show a broken image.
    logo.onerror = showIcon;
    logo.src = configuration.logo_url;
    button.append(logo, badge);
  } else {
    showIcon();
  }
  shadow.append(button);
  doc.body.append(host);
  if (typeof host.showPopover === 'function') {
    host.popover = 'manual';
    host.showPopover();
  }

  return {
    host,
    shadow,
    button,
    setUnread(count) {
      badge.hidden = count === 0;
      badge.textContent = count > 99 ? '99+' : String(count);
      button.setAttribute('aria-label', count === 0 ? label : `${label} (${count})`);
    },
    setOpen(open) {
      host.toggleAttribute('data-open', open);
      button.setAttribute('aria-expanded', String(open));
    },
  };
}
