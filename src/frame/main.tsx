// The frame page's entry: read the URL, fetch the configuration, wire the model to the relay, the page and the
// browser, and render. The URL carries only the client id, the page's origin and a locale: never message text.
import { render } from 'preact';
import { CLIENT_ID_PATTERN, parseWebchatConfiguration, type WebchatConfiguration } from '../shared/configuration.ts';
import { MESSAGE_MAX_LENGTH } from '../shared/wire.ts';
import { createAnalytics } from './analytics.ts';
import { App } from './components/App.tsx';
import { createHostBridge, trustedHostOrigin } from './host-bridge.ts';
import { inlineConfiguration } from './inline-configuration.ts';
import { createStrings, type Locale, type Strings } from './i18n.ts';
import {
  applyLocale,
  fetchLocale,
  inlineLocale,
  rememberedLocale,
  rememberLocale,
  type LoadedLocale,
} from './locale-source.ts';
import { isLocaleTag } from '../shared/locales/locale-list.ts';
import { createChatModel } from './model/chat-model.ts';
import { createHandleStorage } from './session/handle-storage.ts';
import { createTransport } from './transport.ts';
import { randomKey } from './random-key.ts';
import { createPreviewTransport } from './preview/preview-transport.ts';
import './frame.css';

const root = document.getElementById('app')!;
const params = new URLSearchParams(location.search);
// The relay chose the language and wrote its words into the page; the patient may pick another (LanguageSwitch).
let locale: Locale = 'en';
let strings: Strings | null = null;
const useLocale = (loaded: LoadedLocale) => {
  locale = loaded.locale;
  strings = createStrings(loaded.catalog, locale);
  applyLocale(document, locale);
};
const clientId = params.get('client_id') ?? '';
// The demo page's preview: a local preview bot, no storage, no analytics, and configurations sent by the demo page
// (the relay lets only its own pages embed a preview frame).
const preview = params.get('preview') === '1';
// The demo's switches: a light or dark preview whatever the manager's own device uses.
const theme = params.get('theme');
if (preview && (theme === 'light' || theme === 'dark')) document.documentElement.dataset.theme = theme;
const relayTransport = createTransport(
  (input, init) => fetch(input, init),
  '',
  () => locale,
);

/**
 * sessionStorage when the browser really lets the frame write to it, else null. Chrome, Firefox and Safari partition a
 * cross-site frame's storage by the top-level site rather than deny it, but a visitor's setting (all cookies blocked,
 * some private modes) can still deny it: the getter throws, or a write does.
 */
function sessionStorageOrNull(): Storage | null {
  try {
    const storage = window.sessionStorage;
    const probe = 'practice-chat:probe';
    storage.setItem(probe, '1');
    storage.removeItem(probe);
    return storage;
  } catch {
    // The chat works; it just does not resume after a reload or on another page, and the panel says so.
    return null;
  }
}

async function start() {
  // A page without its catalog (not served by the relay's /frame) asks the relay for the language the loader named
  // (the relay's own choice, an exact tag), else English: the panel carries no negotiation code.
  const named = params.get('locale');
  const first = inlineLocale(document) ?? (await fetchLocale(fetch, isLocaleTag(named) ? named : 'en'));
  if (!first) throw new Error('locale');
  useLocale(first);
  if (!CLIENT_ID_PATTERN.test(clientId)) throw new Error('client_id');
  // Written into the page by the relay, so the panel shows without another round trip; asked for otherwise.
  let configuration: WebchatConfiguration =
    inlineConfiguration(document, clientId) ?? (await relayTransport.getConfiguration(clientId));
  const embedded = window.parent !== window;
  const hostOrigin = !embedded
    ? null
    : preview
      ? params.get('origin') === location.origin
        ? location.origin
        : null
      : trustedHostOrigin(params.get('origin'), configuration);
  const transport = preview
    ? createPreviewTransport(relayTransport.getConfiguration, Date.now, () => configuration.bot_name)
    : relayTransport;
  const analytics = createAnalytics(
    preview ? null : configuration.google_tag_id,
    hostOrigin ?? location.origin,
    (url) => void navigator.sendBeacon?.(url),
    randomKey,
  );
  let bridge: ReturnType<typeof createHostBridge> | null = null;
  const storage = preview ? null : sessionStorageOrNull();
  const model = createChatModel({
    transport,
    clientId,
    handles: createHandleStorage(storage, clientId, Date.now),
    analytics,
    now: Date.now,
    random: Math.random,
    newKey: randomKey,
    setTimer: (run, ms) => setTimeout(run, ms),
    clearTimer: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
    onUnread: (count) => bridge?.post({ type: 'unread', count }),
    onAlert: (count) => bridge?.post({ type: 'alert', count }),
  });
  const composerRef = { current: null as HTMLTextAreaElement | null };
  let drawn = false;
  // The caret goes to the composer only while nothing in the panel has it yet: a patient who already clicked into the
  // box, or tabbed to a button, keeps their place, and nothing they typed moves elsewhere. The frame asks for it
  // itself rather than wait until it holds the page's focus: Firefox does not move focus into the frame when the
  // loader asks during an Enter on the launcher, but does when the frame asks.
  const focusComposer = () => {
    const active = document.activeElement;
    if (!active || active === document.body) composerRef.current?.focus();
  };
  if (hostOrigin) {
    bridge = createHostBridge(window, hostOrigin, (message) => {
      if (message.type === 'configure') {
        // Parsed with the shared rules, exactly as a configuration from the relay would be.
        const next = preview ? parseWebchatConfiguration(message.configuration) : null;
        if (next) {
          configuration = next;
          draw();
        }
        return;
      }
      const open = message.type === 'open';
      model.setPanelOpen(open);
      if (open && !drawn) draw();
      // The demo opens its preview panel on page load: focus stays on the demo page there.
      if (open && !preview) focusComposer();
    });
  } else {
    // Opened on its own (not in a practice's page): the panel is simply open.
    model.setPanelOpen(true);
  }
  document.addEventListener('visibilitychange', () => model.setTabHidden(document.visibilityState === 'hidden'));
  // Back from the back-forward cache, or back online: the stream may have died meanwhile.
  addEventListener('pageshow', (event) => event.persisted && model.reconnect());
  addEventListener('online', () => model.reconnect());
  // Whether the panel covers the page (its aria-modal) is read from the frame's size at each drawing: Firefox may draw
  // the panel before the frame has its corner size, so it is drawn again whenever that size changes.
  addEventListener('resize', () => drawn && draw());
  model.resume();

  /** `picked`: the patient chose it now (not the pick of an earlier page, which the service already has). */
  async function switchLanguage(tag: Locale, picked = true) {
    const loaded = tag === locale ? null : await fetchLocale(fetch, tag);
    if (!loaded) return tag === locale;
    useLocale(loaded);
    rememberLocale(storage, tag);
    // The launcher and the frame's title on the page follow, on this page and the site's later ones.
    bridge?.post({ type: 'language', locale: tag });
    // The service answers in the patient's language from now on (the conversation's keeper tells the relay).
    if (picked) model.setLanguage(tag);
    // Not drawn yet (a practice's page before the panel opens): the first draw, on open, uses the new words.
    if (drawn) draw();
    return true;
  }

  const draw = () => {
    drawn = true;
    // The relay titled the page in the first language; a switch retitles it.
    document.title = strings!.panelLabel(configuration.bot_name);
    render(
      <App
        model={model}
        configuration={configuration}
        strings={strings!}
        locale={locale}
        onLanguage={preview ? undefined : switchLanguage}
        maxLength={MESSAGE_MAX_LENGTH}
        composerRef={composerRef}
        preview={preview}
        storageUnavailable={!preview && storage === null}
        // Closed here at once, not when the loader's answer comes back: a reply arriving in between is unread.
        onClose={() => (bridge?.post({ type: 'close' }), model.setPanelOpen(false))}
        refreshLogo={() =>
          relayTransport.getConfiguration(clientId).then(
            (fresh) => fresh.logo_url,
            () => null,
          )
        }
      />,
      root,
    );
  };
  // In a practice's page the panel is first drawn when the loader opens it, in the same task that gives its composer
  // the caret: drawn earlier, it showed a composer that keys typed at once missed, since focus was still on the page's
  // <iframe> until the `open` message came (first-keystrokes.test.ts types across that moment).
  if (!hostOrigin || preview) draw();
  // The patient picked a language on an earlier page of the practice: the panel opens in it again.
  const remembered = rememberedLocale(storage);
  if (remembered && remembered !== locale) void switchLanguage(remembered, false);
  // The demo's sample exchange: the first suggestion, answered by the preview bot (preview only: never the relay).
  if (preview && params.get('sample') === '1') model.send(strings!.suggestions[0] ?? '');
  bridge?.post({ type: 'ready' });
}

start().catch(() => {
  root.textContent = strings?.unavailable ?? '';
});
