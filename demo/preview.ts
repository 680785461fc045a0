// The live preview: the real launcher (the loader's own launcher module) and the real chat panel in a preview frame
// that answers with a local preview bot, both placed inside the mock practice page. Each configuration change
// re-mounts the launcher and is sent to the frame, which parses it with the shared rules. A second, inert launcher
// shows the closed look beside the open panel.
import type { WebchatConfiguration } from '../src/shared/configuration.ts';
import { envelope, parseFrameMessage } from '../src/shared/protocol.ts';
import { mountLauncher, type Launcher } from '../src/loader/launcher.ts';
import { withLauncherLook } from '../src/shared/launcher-look.ts';
import type { LocaleTag } from '../src/shared/locales/locale-list.ts';

export interface Preview {
  show(configuration: WebchatConfiguration): void;
  dispose(): void;
}

export interface PreviewPlaces {
  /** The mock practice page: the launcher and the panel sit in its corner. */
  page: HTMLElement;
  /** Where the closed launcher is shown. */
  closedLook: HTMLElement;
}

export interface PreviewOptions {
  locale: LocaleTag;
  theme: 'light' | 'dark';
  /** A short exchange with the preview bot under the greeting. */
  sample: boolean;
}

/** The loader hangs its launcher from the page's <html>; the preview puts it inside the mock page instead. */
function placeIn(place: HTMLElement, launcher: Launcher): Launcher {
  place.append(launcher.host);
  return launcher;
}

export function createPreview(win: Window, clientId: string, places: PreviewPlaces, options: PreviewOptions): Preview {
  const doc = win.document;
  const origin = win.location.origin;
  let launcher: Launcher | null = null;
  let closed: Launcher | null = null;
  let current: WebchatConfiguration | null = null;
  let ready = false;
  // Open from the start, so what patients will see is visible at once.
  let open = true;

  const frame = doc.createElement('iframe');
  frame.className = 'preview-frame';
  frame.src = `/frame?${new URLSearchParams({ client_id: clientId, preview: '1', origin, locale: options.locale, theme: options.theme, ...(options.sample ? { sample: '1' } : {}) })}`;
  places.page.append(frame);

  const post = (message: Parameters<typeof envelope>[0]) => frame.contentWindow?.postMessage(envelope(message), origin);
  const configure = () => current && ready && post({ type: 'configure', configuration: current });

  function setOpen(next: boolean) {
    open = next;
    frame.hidden = !next;
    launcher?.setOpen(next);
    post({ type: next ? 'open' : 'close' });
    if (next) frame.focus();
    else launcher?.button.focus();
  }

  function receive(event: MessageEvent) {
    if (event.origin !== origin || event.source !== frame.contentWindow) return;
    const message = parseFrameMessage(event.data);
    if (message?.type === 'ready') {
      ready = true;
      configure();
      if (open) post({ type: 'open' });
    }
    if (message?.type === 'close') setOpen(false);
  }
  win.addEventListener('message', receive);

  return {
    show(configuration) {
      current = configuration;
      // The launcher exactly as the relay would answer it for this language: label, lang and direction.
      const answer = withLauncherLook(configuration, options.locale);
      const label = answer.launcher.label;
      frame.title = `${label} (preview)`;
      launcher?.host.remove();
      launcher = placeIn(places.page, mountLauncher(doc, answer, ''));
      launcher.host.classList.add('preview-launcher');
      launcher.button.addEventListener('click', () => setOpen(!open));
      launcher.setOpen(open);
      closed?.host.remove();
      closed = placeIn(places.closedLook, mountLauncher(doc, answer, ''));
      closed.host.classList.add('closed-launcher');
      // A picture of the closed launcher: not a second control for keyboards and screen readers.
      closed.host.inert = true;
      configure();
    },
    dispose() {
      win.removeEventListener('message', receive);
      launcher?.host.remove();
      closed?.host.remove();
      frame.remove();
    },
  };
}
