// The chat frame: created lazily inside the launcher's shadow root, pointed at the relay's /frame, and spoken to
// only through the shared protocol with the relay's exact origin. Messages are accepted only from that origin and
// from this frame's window.
import { envelope, parseFrameMessage, type FrameMessage, type HostMessage } from '../shared/protocol.ts';

export interface ChatFrame {
  /** Creates the frame if it does not exist yet. */
  ensure(): void;
  post(message: HostMessage): void;
  focus(): void;
  remove(): void;
}

/** Positional parameters: the loader's size budget pays for every property name that survives minification. */
export function createChatFrame(
  win: Window,
  shadow: ShadowRoot,
  relayOrigin: string,
  frameQuery: URLSearchParams,
  title: string,
  onMessage: (message: FrameMessage) => void,
): ChatFrame {
  let iframe: HTMLIFrameElement | null = null;
  let ready = false;
  // What the frame should hear once it is ready: the last open/close only.
  let pending: HostMessage | null = null;
  const viewport = win.visualViewport;

  const send = (message: HostMessage) => iframe?.contentWindow?.postMessage(envelope(message), relayOrigin);

  function receive(event: MessageEvent) {
    const message = event.origin == relayOrigin && iframe && event.source == iframe.contentWindow && parseFrameMessage(event.data);
    if (!message) return;
    if (message.type == 'ready') {
      ready = true;
      if (pending) send(pending);
      pending = null;
    }
    onMessage(message);
  }

  // On phones the panel fills the visual viewport, which shrinks when the keyboard opens.
  function fitViewport() {
    const small = viewport && win.innerWidth <= 480;
    if (iframe) {
      iframe.style.height = small ? viewport.height + 'px' : '';
      iframe.style.top = small ? viewport.offsetTop + 'px' : '';
    }
  }

  /** Adds or removes every listener the frame needs, so remove() undoes exactly what ensure() did. */
  const listen = (how: 'addEventListener' | 'removeEventListener') => {
    win[how]('message', receive as EventListener);
    viewport?.[how]('resize', fitViewport);
    viewport?.[how]('scroll', fitViewport);
  };

  return {
    ensure() {
      if (iframe) return;
      iframe = win.document.createElement('iframe');
      iframe.src = `${relayOrigin}/frame?${frameQuery}`;
      iframe.title = title;
      // The frame may run its own scripts and open links in new tabs, but never navigate or script the practice's page.
      iframe.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox allow-forms');
      iframe.referrerPolicy = 'origin';
      listen('addEventListener');
      shadow.append(iframe);
    },
    post(message) {
      if (ready) send(message);
      else pending = message;
      fitViewport();
    },
    focus: () => iframe?.focus(),
    remove() {
      listen('removeEventListener');
      iframe?.remove();
      iframe = null;
    },
  };
}
