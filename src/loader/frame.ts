// The chat frame once its code is here: loader.js made the element on the patient's first sign of intent (so the
// browser loads the frame's page while this code is on its way) and held the page's messages meanwhile; this code
// takes both over. The frame is spoken to only through the shared protocol with the relay's exact origin, and messages
// are accepted only from that origin and from this frame's window. It is the second file's code (frame-entry.ts), not
// loader.js's: every page view pays for loader.js, only a patient who comes near the chat pays for this.
import { envelope, parseFrameMessageWith, type FrameMessage, type HostMessage } from '../shared/protocol.ts';
import type { HeldMessages } from './held-messages.ts';
import { BADGE_CSS, CORNER_FRAME_CSS, SMALL_SCREEN } from './launcher-styles.ts';

/** What loader.js calls across the two files: names that neither build shortens (own-properties.ts). */
export interface ChatFrame {
  /** Sends open/close once the frame is ready; an open also moves focus into the frame (see flush). */
  post(message: HostMessage): void;
  /** Stops following the viewport and undoes what the panel made inert; the message listener and the element go
   * with the launcher's (boot.ts). */
  remove(): void;
}

/** The one function loader.js calls in this file. Positional parameters: the two files are minified apart, so a
 * property name shortened in one would not be found in the other, and loader.js's size budget pays for every name
 * that survives. `held` is the page's message listener, with what it heard before this code came. With `alert` (the
 * tag did not turn it off), replies while the page is hidden show as "(N) " before its title; every other message goes
 * to `onMessage`. `languageTag` is loader.js's own check (shared/language-tag.ts), so this file ships no copy. */
export function createChatFrame(
  win: Window,
  shadow: ShadowRoot,
  relayOrigin: string,
  iframe: HTMLIFrameElement | null,
  held: HeldMessages,
  alert: boolean,
  languageTag: (value: unknown) => string,
  onMessage: (message: FrameMessage) => void,
): ChatFrame {
  const doc = win.document;
  let ready = false;
  // What the frame should hear once it is ready: the last open/close only.
  let pending: HostMessage | null = null;
  const viewport = win.visualViewport;
  let open = false;
  // What fitViewport made inert while the panel covers the page.
  let behind: HTMLElement[] = [];

  function receive(event: MessageEvent) {
    // Only while the frame is there: the loader takes this listener away before it removes the frame.
    const message =
      event.origin === relayOrigin &&
      event.source === iframe!.contentWindow &&
      parseFrameMessageWith(event.data, languageTag);
    if (!message) return;
    // What is pending goes out on flush()'s next tick, not from here (see flush). A second `ready` is a frame that has
    // loaded again (the page took the widget out of the document, and the loader put it back): it resumed the
    // conversation from its own storage, and hears from here whether it is open.
    if (message.type === 'ready') {
      if (ready && open) {
        pending = { type: 'open' };
        flush();
      }
      ready = true;
    }
    // Only "(N) " before the page's title, never anything else. The pattern takes the prefix already there, or (its
    // empty alternative) nothing, so the page's own title stays.
    if (message.type !== 'alert') onMessage(message);
    else if (alert) doc.title = doc.title.replace(/^\(\d+\) |/, message.count ? `(${message.count}) ` : '');
  }

  // Sends what is pending once the frame is ready, from a timer chain that the patient's click started rather than from
  // the frame's `ready` message: WebKit lets a click's timers carry its permission to move focus (for about a second)
  // into the message they post, so the panel may put the caret in its composer; a message sent from `ready` carries none.
  // Focus moves into the frame here, once it is ready, and only while the page's focus is still on the widget (or on
  // nothing): focused while still loading, Chromium went on sending keys to the page's <iframe> element after the
  // panel had put the caret in its composer; and a patient who moved on in the page meanwhile keeps their place.
  // The chain's timers are the shortest the browser gives, so the open follows `ready` within a few milliseconds.
  // The frame is shown here too, not before its panel is ready (see fitViewport), and before focus moves into it: a
  // browser does not focus a frame that is not displayed. `open` says what `pending` is: post() sets both together.
  function flush() {
    if (!ready) iframe && setTimeout(flush);
    else if (pending) {
      fitViewport();
      // Still on the widget, or on nothing (<body>, or <html> while the page has no body): the elements that contain
      // the widget's host, and the body beside it.
      if (open && (doc.activeElement === doc.body || doc.activeElement!.contains(shadow.host))) iframe!.focus();
      iframe!.contentWindow!.postMessage(envelope(pending), relayOrigin);
      pending = null;
    }
  }

  // On small screens the open panel fills the visual viewport, which shrinks when the keyboard opens, and covers the
  // page: then the page behind it and the launcher under it are inert, so a screen reader's reading and the browser's
  // Tab stay in the panel, as in a modal dialog. `inert` is what Chromium, Firefox and WebKit all take out of their
  // accessibility trees (aria-modal is not enough: Chromium on Linux keeps the page behind, which Orca then reads).
  // Only elements found not inert are marked, and exactly those unmarked, so the page's own use of `inert` survives;
  // they change only when the panel starts or stops covering the page (opened, closed, a phone turned).
  function fitViewport() {
    const small = viewport && win.matchMedia(SMALL_SCREEN).matches;
    const covers = open && !!small;
    // Closed, the panel is not shown (loader.js made it hidden). Open, it sits above the launcher; on small screens,
    // narrow or short (a phone held sideways, a zoomed window), it is the whole visual viewport, whose height follows
    // the mobile keyboard. Styled here rather than in the launcher's sheet: loader.js, which every page view pays for,
    // carries none of it. A style property, not a style attribute, which a page's CSP may refuse.
    // A frame opened before its panel was ready stays hidden until it is, then is shown and focused in one step: shown
    // while it loaded, it was in the page's accessibility tree, and Chromium reported its document focused before
    // the panel's composer; Orca, taking the document up after the composer had the caret, moved there silently and
    // never spoke the composer or the greeting (its description).
    iframe!.hidden = !(open && ready);
    iframe!.style.cssText = small
      ? `position:fixed;inset:0;width:100vw;height:${viewport.height}px;top:${viewport.offsetTop}px;border:0`
      : CORNER_FRAME_CSS;
    if (covers !== !!behind.length) {
      for (const element of behind) element.inert = false;
      // The widget's host hangs from <html>, beside the body, so the page's elements are the body's children.
      behind = covers
        ? [...(doc.body.children as HTMLCollectionOf<HTMLElement>), shadow.querySelector('button')!].filter(
            (element) => !element.inert,
          )
        : [];
      for (const element of behind) element.inert = true;
    }
  }

  /** Adds or removes the viewport's listeners, so remove() undoes exactly what this file did. */
  const listen = (how: 'addEventListener' | 'removeEventListener') => {
    viewport?.[how]('resize', fitViewport);
    viewport?.[how]('scroll', fitViewport);
  };

  // The unread count's badge shows only what this code hears from the frame, so its look comes with this code.
  shadow.querySelector('span')!.style.cssText = BADGE_CSS;
  // The page's messages come here from now on; those that came before are read first, in order.
  held.handleEvent = receive;
  held.splice(0).forEach(receive);
  listen('addEventListener');

  return {
    post(message) {
      pending = message;
      open = message.type === 'open';
      flush();
    },
    remove() {
      open = false;
      fitViewport();
      listen('removeEventListener');
      iframe = null;
    },
  };
}
