// The loader's whole life: read the tag, take over window.PracticeChat (replaying queued calls), fetch the
// configuration, fail closed or mount the launcher (once the page has a body) and keep it in the page, start the
// frame and fetch its code on intent, and undo all of it on destroy().
// The imports' order is the order of the modules in loader.js, which brotli compresses better in some orders than
// in others: this one was measured smallest (test/unit/bundles holds the size).
import type { FrameMessage } from '../shared/protocol.ts';
import { mountLauncher, type Launcher } from './launcher.ts';
import { refusalFor } from './host-check.ts';
import { fetchConfiguration } from './fetch-configuration.ts';
import { holdMessages, type HeldMessages } from './held-messages.ts';
import type { ChatFrame, createChatFrame } from './frame.ts';
import { findOwnScript, readScriptTag } from './script-tag.ts';
import { chosenLanguage } from './chosen-language.ts';
import { createApi, replayQueue, type PracticeChatApi } from './api.ts';
import { languageTag } from '../shared/language-tag.ts';

export interface BootEnvironment {
  win: Window & { PracticeChat?: unknown };
  fetch: typeof fetch;
  wait(ms: number): Promise<void>;
  /** The single console line when the widget is not shown. */
  report(line: string): void;
  /** The frame's code, the loader's second file (frame-entry.ts), imported from the relay: a module whose default
   * export is createChatFrame. */
  loadFrame(relayOrigin: string): Promise<{ default: typeof createChatFrame }>;
}

export const REPORT_PREFIX = 'Practice chat not shown: ';
/** The console line when the frame's code could not be fetched (the launcher stays, and tries again on intent). */
export const FRAME_REPORT = 'Practice chat: its panel could not be loaded';
/** After REPORT_PREFIX, when a tag runner (Partytown and the like) runs the tag in a web worker, away from the page. */
export const WORKER_REPORT = 'it runs in a worker: use a plain <script>';

export function boot({ win, fetch, wait, report, loadFrame }: BootEnvironment): void {
  const existing = win.PracticeChat as PracticeChatApi | undefined;
  // Pasted twice, or loaded again by a single-page app: the first copy stays the only widget.
  if (existing?.loaded) return;
  const doc = win.document;
  const settings = readScriptTag(findOwnScript(doc));

  let launcher: Launcher;
  // The frame's element, from the first intent on, and its code's handle on it once that code has come.
  let iframe: HTMLIFrameElement | undefined;
  let frame: ChatFrame | undefined;
  // The page's messages until the frame's code takes them (held-messages.ts); unset until the first intent, when
  // removing it removes nothing.
  let held: HeldMessages;
  // Set once the launcher is mounted; starts the frame and fetches its code.
  let ensureFrame: () => unknown;
  // Set once the launcher is mounted: puts it back when the page takes it out, and sizes it for the page's zoom.
  let keeper: MutationObserver | undefined;
  let keep: () => void;
  let hydrationEnd: Comment | undefined;
  let destroyed = false;
  let isOpen = false;
  // The frame's code while it is on its way, or once it has come (ensureFrame).
  let loading: Promise<unknown> | undefined;
  // Tells the frame whether it is open, from a timer chain that the patient's click starts and that waits for the
  // frame's code, never from that code's arrival: WebKit lets a click's timers carry its permission to move focus into
  // the panel (frame.ts, flush), and an import's promise carries none.
  // A chain still running when destroy() removes the frame must not post to it: that would throw into the page. Each
  // link of the chain is the shortest timer the browser gives (a few milliseconds once nested), not a fixed pause: a
  // tap's open waits for the code anyway, and should not wait longer than its arrival.
  const tell = (): unknown =>
    destroyed || (frame ? frame.post({ type: isOpen ? 'open' : 'close' }) : loading && setTimeout(tell));
  // open()/close() called before the launcher exists: applied once it does.
  let wanted: boolean | undefined;

  // The launcher, the page's events and the frame follow at once; a frame whose code is still on its way hears the
  // latest state when it arrives (ensureFrame).
  function setOpen(want: boolean | 'toggle', fromFrame?: boolean) {
    const next = want === 'toggle' ? !(launcher ? isOpen : wanted) : want;
    if (destroyed || !launcher) {
      wanted = next;
      return;
    }
    if (next === isOpen) return;
    isOpen = next;
    ensureFrame();
    keep();
    launcher.setOpen(next);
    tell();
    // Closing from inside the panel (Escape, its close button) returns focus to the launcher.
    if (!next && (fromFrame || doc.activeElement === launcher.host)) launcher.button.focus();
    events.emit(next ? 'open' : 'close');
  }

  // The launcher's own listeners go with its element; the configuration request checks `destroyed` when it settles.
  function destroy() {
    if (destroyed) return;
    destroyed = true;
    keeper?.disconnect();
    win.removeEventListener('message', held);
    frame?.remove();
    launcher?.host.remove();
    hydrationEnd?.remove();
    events.removeAllListeners();
    if (win.PracticeChat === api) delete win.PracticeChat;
  }

  const { api, events } = createApi({ setOpen, destroy }, () => !!launcher);
  win.PracticeChat = api;
  replayQueue(api, existing);

  const refuse = (why: string) => destroyed || report(REPORT_PREFIX + why);
  if (typeof settings === 'string') return void refuse(settings);
  const { relayOrigin, clientId } = settings;
  // The patient's own pick on this site wins over the tag's data-locale: the practice wrote the tag for every visitor,
  // the patient chose for themself. It is read while the configuration is asked for in the tag's language, and the
  // first answer waits for it: a patient whose pick that answer is not in waits for one more, in the pick. The relay
  // chooses the language and writes the launcher's words.
  let locale = settings.locale;
  const earlierPick = chosenLanguage(win);

  /** Shows the launcher in `tag`'s language, or, once shown, renames it and the frame in it (the latest pick only). */
  const show = (tag: string): Promise<unknown> =>
    fetchConfiguration(relayOrigin, clientId, tag, fetch, wait).then(async (configuration) => {
      const pick = launcher ? '' : await earlierPick;
      if (destroyed || tag !== locale) return;
      // A pick whose words could not be fetched leaves the launcher as it is, without a word on the console.
      if (typeof configuration === 'string') return launcher || refuse(configuration);
      // In the visitor's language, chosen by the relay (the patient's pick, data-locale, else the browser's languages).
      const look = configuration.launcher;
      if (pick && pick !== tag) {
        locale = pick;
        return show(pick);
      }
      if (launcher) return launcher.relabel(look);
      const refusal = refusalFor(configuration, win.location.hostname);
      if (refusal) return refuse(refusal);
      launcher = mountLauncher(doc, configuration, settings.nonce);
      const host = launcher.host;
      // A comment that goes just before the launcher, between <body> and it. React 18, hydrating the whole document
      // (Remix, React Router's framework mode, Next.js's App Router), takes any element after <body> in <html> for a
      // mismatch of its own markup: it reports two errors and renders the document again. It looks no further than
      // the end marker of a Suspense boundary, `<!--/$-->`, which is what this comment reads as to React 18 and 19
      // alike (each one's getNextHydratable). Any other script, and the browser, pay a comment no attention.
      hydrationEnd = doc.createComment('/$');
      // The launcher hangs from <html>, after <body>: a page that swaps its body (Turbo, htmx, view transitions) leaves
      // it alone. It is put there once the page has a body (a tag in <head> may run before the body exists, on a page
      // that streams its head first), so that it follows the page's content, for keyboard users too; and put back when
      // the page takes it out (a re-render of the whole document, a script that tidies <html>): the same element, with
      // the same count and the same frame, which loads again and resumes the conversation from its own storage; the
      // comment goes back before it.
      // Watching the document's and <html>'s own children, not their subtrees, costs a page nothing while it changes
      // its content; and a change that leaves the launcher in place (its own insertion among them) costs no more than
      // the look at isConnected. Putting it back from a timer, not from the observer's microtask, lets the page's own
      // scripts run between: a script that removes it as soon as it is back makes a slow loop, not a frozen page.
      keep = () => {
        const root = doc.documentElement as (HTMLElement & { currentCSSZoom?: number }) | null;
        if (destroyed || !root) return;
        keeper!.observe(root, { childList: true });
        // A page's `zoom` on <html> would scale the launcher and the panel past the viewport's edges (a panel taller
        // than the screen, its header above it): the host undoes it (launcher-styles.ts), read again when it opens.
        // A number, which the browser turns into text; where it lacks currentCSSZoom, NaN, which CSS rejects: no zoom.
        // Read before the launcher goes in: reading it after would make the browser compute the launcher's styles
        // there and then, in the page's time, instead of in the next frame, which computes them anyway.
        host.style.setProperty('--zoom', (1 / root.currentCSSZoom!) as unknown as string);
        if (!host.isConnected && doc.body) root.append(hydrationEnd!, host);
      };
      keeper = new MutationObserver(() => host.isConnected || setTimeout(keep));
      keeper.observe(doc, { childList: true });
      keep();
      // The frame learns its configuration, the page's exact origin (its postMessage target) and the language.
      // Its values need no escaping in a query: the client id matched CLIENT_ID_PATTERN, the relay's locale is held to a
      // language tag here (no `&` or `#` from an answer reaches the address), and the page's origin is its own: a host
      // that resolves is letters, digits, `-` and `.` (the URL standard would parse a `&` or `+` in a host, which only
      // a page that cannot be reached could have, and whose panel would then refuse its garbled origin).
      const frameQuery = `client_id=${clientId}&origin=${win.location.origin}&locale=${languageTag(look.locale)}`;
      // The message taken apart once (`count` is there for `unread`, `locale` for `language`): the loader's size budget
      // pays for each `message.` that survives minification.
      const onMessage = ({ type, count, locale: picked }: FrameMessage & { count?: number; locale?: string }) => {
        if (type === 'close') setOpen(false, true);
        // The patient picked a language in the panel: kept for the site's later pages, and the launcher and the
        // frame renamed in it once the relay has written the words (only the latest pick, if answers cross).
        if (type === 'language' && picked !== locale) {
          locale = picked!;
          chosenLanguage(win, locale);
          show(locale);
        }
        if (type === 'unread') {
          launcher.setUnread(count!);
          events.emit('unread', count!);
        }
      };
      // The frame, and the code that runs it, come on intent: the first hover, focus or touch of the launcher (or
      // open() from the page). Traces of a practice's page (bench/results.md) showed that making it at idle cost the
      // page's main thread CPU of its own, and that its loading (another renderer process, the panel's script)
      // competed with the page's own. A visitor who never comes near the chat never pays for either; the hover,
      // focus or touch comes a moment before the click, so the frame is loading by then. The frame's navigation
      // starts here, beside the request for its code rather than after it: a tap gives the frame no time to spare.
      // A click before the code arrives is not lost: the frame opens when it does (tell). Code that fails to arrive is
      // asked for again on the next intent, for the same frame.
      ensureFrame = () => {
        if (!iframe) {
          held = holdMessages(win);
          iframe = launcher.addFrame(`${relayOrigin}/frame?${frameQuery}`);
        }
        loading ||= loadFrame(relayOrigin)
          .then(({ default: create }) => {
            if (destroyed) return;
            frame = create(win, launcher.shadow, relayOrigin, iframe!, held, settings.alert, languageTag, onMessage);
          })
          .catch(() => {
            loading = undefined;
            destroyed || report(FRAME_REPORT);
          });
      };
      const button = launcher.button;
      // A finger's touch fires pointerenter too, before the tap's click: no touch listener is needed (one would make
      // the browser track touches over the launcher for nothing). Handler properties, not addEventListener: the
      // button is the loader's own, and they cost its size budget less.
      button.onpointerenter = button.onfocus = ensureFrame;
      button.onclick = () => setOpen('toggle');
      events.emit('ready');
      if (wanted !== undefined) setOpen(wanted);
    });
  show(locale).catch(() => refuse('an unexpected error'));
}
