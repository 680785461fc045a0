// Reads the loader's own script tag once: which configuration (data-client-id, or client_id in its src), which relay
// (the src's origin, or data-relay), the CSP nonce to reuse, the visitor's language if the page sets one, and whether
// replies in a hidden tab may show in the page's title.
import { CLIENT_ID_PATTERN } from '../shared/configuration.ts';
import { languageTag } from '../shared/protocol.ts';

export interface ScriptSettings {
  clientId: string;
  relayOrigin: string;
  nonce: string;
  /** data-locale when it has a language tag's shape, else ''; the relay maps it to a language it has, or ignores it. */
  locale: string;
  /** data-title-alert="off": no "(N) " before the page's title for replies while the tab is hidden. */
  alert: boolean;
}

/**
 * The loader's script element. `document.currentScript` is set while a classic script first runs (async too); a
 * tag manager may inject it so that it is not, so fall back to the last script whose src names the loader.
 */
export function findOwnScript(doc: Document): HTMLScriptElement | null {
  const current = doc.currentScript as HTMLScriptElement | null;
  // Only a tag that names a client id: another vendor's loader.js on the page is not ours. (A tag that puts the id in
  // its src query is found through currentScript, the usual case.)
  return current?.src != null
    ? current
    : ([...doc.querySelectorAll<HTMLScriptElement>('script[data-client-id][src*="/loader.js"]')].pop() ?? null);
}

/** The settings, or why there are none (for the single console line). */
export function readScriptTag(script: HTMLScriptElement | null): ScriptSettings | string {
  if (!script) return 'its script tag, with data-client-id, was not found';
  const data = script.dataset;
  let relayOrigin: string;
  let clientId: string;
  try {
    const src = new URL(script.src);
    // By attribute, not `data.clientId`: the minifier shortens the property name `clientId` (own-properties.ts), which
    // would then read the wrong dataset entry.
    clientId = script.getAttribute('data-client-id') ?? src.searchParams.get('client_id') ?? '';
    relayOrigin = new URL(data.relay || src).origin;
  } catch {
    return 'its src or data-relay is not a URL';
  }
  if (!/^https?:/.test(relayOrigin)) return 'the relay must be an http(s) address';
  if (!CLIENT_ID_PATTERN.test(clientId)) return 'data-client-id is missing or malformed';
  // Browsers hide the nonce attribute once the script runs and keep it in the property.
  return {
    clientId,
    relayOrigin,
    nonce: script.nonce || script.getAttribute('nonce') || '',
    locale: languageTag(data.locale),
    alert: data.titleAlert != 'off',
  };
}
