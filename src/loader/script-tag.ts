// Reads the loader's own script tag once: which configuration (data-client-id, or client_id in its src), which relay
// (the src's origin, or data-relay; for a tag it had to guess, the origin this code came from), the CSP nonce to reuse, the visitor's language if the page sets one, and whether
// replies in a hidden tab may show in the page's title.
import { CLIENT_ID_PATTERN } from '../shared/configuration.ts';
import { languageTag } from '../shared/protocol.ts';

/** The tag, and the URL this code was loaded from when the tag was not the browser's word for it. */
export type OwnScript = [script: HTMLScriptElement, loadedFrom?: string] | undefined;

export interface ScriptSettings {
  clientId: string;
  relayOrigin: string;
  nonce: string;
  /** data-locale when it has a language tag's shape, else ''; the relay maps it to a language it has, or ignores it. */
  locale: string;
  /** data-title-alert="off": no "(N) " before the page's title for replies while the tab is hidden. */
  alert: boolean;
}

/** The one line for a tag that cannot be found, or cannot be told apart, or names no valid configuration. */
const TAG_WANTED = 'paste its script tag once, with a valid data-client-id, outside shadow roots';

/**
 * The loader's script element and, when it had to be guessed, the URL this code was loaded from.
 *
 * `document.currentScript` is set while a classic script first runs (async too), and is then the browser's word. Without
 * it (a tag in a shadow root, code run by a tag manager) the page's markup is all there is, and markup may have been
 * injected: a script tag the page's CSP blocked stays in the DOM, with a data-relay or a src of its author's choosing.
 * So the fallback takes a tag only when it is the one script naming a client id, and then only for what it configures
 * (the client id, the nonce, the language, the title alert): the relay is the origin this code was loaded from,
 * whatever the tag's src or data-relay say. A classic script has no import.meta.url, and the build cannot write that
 * origin in (one build is served by any relay); the engine names it in a stack trace, whose innermost frame is the
 * file that is running, which no markup can change. A trace that names no URL (code run through eval) leaves no tag.
 */
export function findOwnScript(doc: Document, stack = new Error().stack!): OwnScript {
  const current = doc.currentScript as HTMLScriptElement | null;
  // Markup can name an element "currentScript" (DOM clobbering: <img name=currentScript src=...>), which the document
  // then answers instead: only a script element is the browser's word. By its local name, which is lower-case in any
  // document (tagName is upper-case only in HTML documents: an XHTML page's script is "script").
  if (current?.localName === 'script') return [current];
  // The first URL in the trace: V8 writes "at f (https://...:1:2)", Firefox and WebKit "f@https://...:1:2".
  const at = stack.indexOf('http');
  const [tag, another] = doc.querySelectorAll<HTMLScriptElement>('script[data-client-id]');
  if (tag && !another && at > -1) return [tag, stack.slice(at)];
}

/** The settings, or why there are none (for the single console line). */
export function readScriptTag(own: OwnScript): ScriptSettings | string {
  if (!own) return TAG_WANTED;
  // `loadedFrom` runs on past the URL (the rest of the trace), which leaves its origin as it is.
  const [script, loadedFrom] = own;
  const data = script.dataset;
  let relayOrigin = '';
  let clientId = '';
  try {
    const src = new URL(script.src);
    // By attribute, not `data.clientId`: the minifier shortens the property name `clientId` (own-properties.ts), which
    // would then read the wrong dataset entry.
    clientId = script.getAttribute('data-client-id') ?? src.searchParams.get('client_id') ?? '';
    relayOrigin = new URL(loadedFrom || data.relay || src).origin;
  } catch {
    // A src the browser loaded is a URL: what fails here is data-relay, and the line below says so.
  }
  if (!/^https?:/.test(relayOrigin)) return 'the relay must be an http(s) address';
  if (!CLIENT_ID_PATTERN.test(clientId)) return TAG_WANTED;
  // Browsers hide the nonce attribute once the script runs and keep it in the property.
  return {
    clientId,
    relayOrigin,
    nonce: script.nonce || script.getAttribute('nonce') || '',
    locale: languageTag(data.locale),
    alert: data.titleAlert !== 'off',
  };
}
