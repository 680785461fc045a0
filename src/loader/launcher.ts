// The launcher: a <button> in a shadow root, built with plain DOM (no Preact, no innerHTML, so pages that enforce
// Trusted Types accept it). The caller puts the host element in the page (the loader hangs it from <html>, boot.ts,
// where a transform, filter or zoom on the body does not move it). It sits one z-index below the highest, and not in
// the top layer, so that a consent banner at the highest z-index stays above it (launcher-styles.ts).
import type { LoaderConfiguration } from './fetch-configuration.ts';
import { launcherCss } from './launcher-styles.ts';
import type { LauncherLook } from '../shared/launcher-look.ts';

/**
 * The host element's name. A custom element's name, which any element's shadow root needs, that no page will have
 * defined for itself: a page's own <practice-chat> element would have taken over the loader's.
 */
export const HOST_ELEMENT = 'practice-chat-q7x';

export interface Launcher {
  host: HTMLElement;
  shadow: ShadowRoot;
  button: HTMLButtonElement;
  setUnread(count: number): void;
  setOpen(open: boolean): void;
  /** Names the launcher in another language (its label, `lang` and `dir`, and so its corner), and its frame. */
  relabel(look: LauncherLook): void;
  /** Starts loading the chat frame at `src`, in the shadow root beside the button (once: boot.ts keeps it). */
  addFrame(src: string): HTMLIFrameElement;
}

export function mountLauncher(
  doc: Document,
  { logo_url, launcher: look }: LoaderConfiguration,
  nonce: string,
): Launcher {
  /** An element with attributes; `ns` for SVG. */
  const make = (name: string, attributes: Record<string, string> = {}, ns?: string) => {
    const element = (ns ? doc.createElementNS(ns, name) : doc.createElement(name)) as HTMLElement;
    for (const key in attributes) element.setAttribute(key, attributes[key]!);
    return element;
  };
  const host = make(HOST_ELEMENT);
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

  const button = make('button', { type: 'button', 'aria-expanded': 'false' }) as HTMLButtonElement;
  const badge = make('span', { 'aria-hidden': 'true', hidden: '' });
  let label = '';
  let unread = 0;
  let frame: HTMLIFrameElement | undefined;
  const name = () => button.setAttribute('aria-label', unread ? `${label} (${unread})` : label);
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
  const launcher: Launcher = {
    host,
    shadow,
    button,
    setUnread(count) {
      badge.hidden = !count;
      badge.textContent = count > 99 ? '99+' : '' + count;
      unread = count;
      name();
    },
    relabel({ label: next, locale, dir }) {
      label = next;
      host.lang = locale;
      host.dir = dir;
      name();
      // The frame's accessible name is the launcher's label.
      if (frame) frame.title = next;
    },
    addFrame: (src) =>
      (frame = shadow.appendChild(
        make('iframe', {
          // The frame may run its own scripts and open links in new tabs, but never navigate or script the practice's
          // page. Set before `src`, and before the element is in the document, which is when its navigation starts.
          sandbox: 'allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox allow-forms',
          referrerpolicy: 'origin',
          title: label,
          // Hidden until the panel is open: the frame's code shows it then (frame.ts).
          hidden: '',
          src,
        }) as HTMLIFrameElement,
      )),
    setOpen(open) {
      button.setAttribute('aria-expanded', '' + open);
    },
  };
  // The visitor's language and direction: Arabic and Persian put the launcher in the other corner (launcher-styles).
  launcher.relabel(look);
  return launcher;
}
