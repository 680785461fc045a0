// The frame's side of the loader⇄frame protocol. It posts only to the page's exact origin, and that origin must be
// one of the configuration's domains; it accepts messages only from that origin and from its parent window.
import type { WebchatConfiguration } from '../shared/configuration.ts';
import { matchHost } from '../shared/host-match.ts';
import { envelope, parseHostMessage, type FrameMessage, type HostMessage } from '../shared/protocol.ts';

export interface HostBridge {
  post(message: FrameMessage): void;
  dispose(): void;
}

/** The page's origin from the frame URL, if it is a plain http(s) origin of an allowed host; else null. */
export function trustedHostOrigin(claimed: string | null, configuration: WebchatConfiguration): string | null {
  if (claimed === null) return null;
  let url: URL;
  try {
    url = new URL(claimed);
  } catch {
    return null;
  }
  if (url.origin !== claimed || !/^https?:$/.test(url.protocol)) return null;
  return matchHost(url.hostname, configuration.domains).allowed ? url.origin : null;
}

export function createHostBridge(
  win: Window,
  hostOrigin: string,
  onMessage: (message: HostMessage) => void,
): HostBridge {
  function receive(event: MessageEvent) {
    if (event.origin !== hostOrigin || event.source !== win.parent) return;
    const message = parseHostMessage(event.data);
    if (message) onMessage(message);
  }
  win.addEventListener('message', receive);
  return {
    post: (message) => win.parent.postMessage(envelope(message), hostOrigin),
    dispose: () => win.removeEventListener('message', receive),
  };
}
