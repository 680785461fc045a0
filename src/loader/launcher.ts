// The launcher: a <button> in a shadow root, built with plain DOM (no Preact, no innerHTML, so pages that enforce
// Trusted Types accept it). The host element is shown in the top layer as a manual popover where the browser has
// popovers, so no z-index on the page can cover it; elsewhere it falls back to the highest z-index.
import type { LoaderConfiguration } from './fetch-configuration.ts';
import { launcherCss } from './launcher-styles.ts';

export interface Launcher {
  host: HTMLElement;
  shadow: ShadowRoot;
  button: HTMLButtonElement;
  setUnread(count: number): void;
  setOpen(open: boolean): void;
}

export function mountLauncher(
  doc: Document,
  { logo_url, launcher: look }: LoaderConfiguration,
  nonce: string,
  label: string,
): Launcher {
  /** An element with attributes; `ns` for SVG. */
  const make = (name: string, attributes: Record<string, string> = {}, ns?: string) => {
    const element = (ns ? doc.createElementNS(ns, name) : doc.createElement(name)) as HTMLElement;
    for (const key in attributes) element.setAttribute(key, attributes[key]!);
    return element;
  };
  // The visitor's language and direction: Arabic and Persian put the launcher in the other corner (launcher-styles).
  const host = make('practice-chat', { lang: look.locale, dir: look.dir });
  const shadow = host.attachShadow({ mode: 'open' });
  const css = launcherCss(look);
  try {
    // A constructed stylesheet needs no 'unsafe-inline' and no nonce under the page's CSP.
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    shadow.adoptedStyleSheets = [sheet];
  } catch {
    const style = make('style', { nonce });
    style.textContent = css;
    shadow.append(style);
  }

  const button = make('button', { type: 'button', 'aria-expanded': 'false', 'aria-label': label }) as HTMLButtonElement;
  const badge = make('span', { 'aria-hidden': 'true', hidden: '' });
  const showIcon = () => {
    // A speech bubble.
    const svg = make('svg', { viewBox: '0 0 24 24', 'aria-hidden': 'true' }, 'http://www.w3.org/2000/svg');
    svg.append(
      make(
        'path',
        { d: 'M4 3h16a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2z' },
        svg.namespaceURI!,
      ),
    );
    button.replaceChildren(svg, badge);
  };
  if (logo_url) {
    // Only the relay's own address reaches here (fetch-configuration.ts); no referrer goes with it.
    const logo = make('img', { alt: '', referrerpolicy: 'no-referrer', src: logo_url });
    // A signed logo URL expires: fall back to the icon rather than show a broken image.
    logo.onerror = showIcon;
    button.append(logo, badge);
  } else showIcon();
  shadow.append(button);
  doc.body.append(host);
  if (host.showPopover) {
    host.popover = 'manual';
    host.showPopover();
  }

  return {
    host,
    shadow,
    button,
    setUnread(count) {
      badge.hidden = !count;
      badge.textContent = count > 99 ? '99+' : '' + count;
      button.setAttribute('aria-label', count ? `${label} (${count})` : label);
    },
    setOpen(open) {
      host.toggleAttribute('data-open', open);
      button.setAttribute('aria-expanded', '' + open);
    },
  };
}
