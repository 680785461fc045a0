// The live preview: the real launcher (the loader's own launcher module) on this page, and the real chat panel in a
// preview frame that answers with a local preview bot. Each configuration change re-mounts the launcher and is sent
// to the frame, which parses it with the shared rules.
import type { WebchatConfiguration } from '../src/shared/configuration.ts';
import { envelope, parseFrameMessage } from '../src/shared/protocol.ts';
import { mountLauncher, type Launcher } from '../src/loader/launcher.ts';
import { withLauncherLook } from '../src/shared/launcher-look.ts';

export interface Preview {
  show(configuration: WebchatConfiguration): void;
  dispose(): void;
}

export function createPreview(win: Window, clientId: string): Preview {
  const doc = win.document;
  const origin = win.location.origin;
  let launcher: Launcher | null = null;
  let current: WebchatConfiguration | null = null;
  let ready = false;
  let open = false;

  const frame = doc.createElement('iframe');
  frame.className = 'preview-frame';
  frame.hidden = true;
  frame.src = `/frame?${new URLSearchParams({ client_id: clientId, preview: '1', origin })}`;
  doc.body.append(frame);

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
      frame.title = `Chat with ${configuration.bot_name} (preview)`;
      launcher?.host.remove();
      launcher = mountLauncher(doc, withLauncherLook(configuration), '', `Chat with ${configuration.bot_name}`);
      launcher.host.classList.add('preview-launcher');
      launcher.button.addEventListener('click', () => setOpen(!open));
      launcher.setOpen(open);
      configure();
    },
    dispose() {
      win.removeEventListener('message', receive);
      launcher?.host.remove();
      frame.remove();
    },
  };
}
