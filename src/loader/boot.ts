// The loader's whole life: read the tag, take over window.PracticeChat (replaying queued calls), fetch the
// configuration, fail closed or mount the launcher, create the frame lazily, and undo all of it on destroy().
import { createApi, replayQueue, type PracticeChatApi } from './api.ts';
import type { FrameMessage } from '../shared/protocol.ts';
import { chosenLanguage } from './chosen-language.ts';
import { fetchConfiguration } from './fetch-configuration.ts';
import { createChatFrame, type ChatFrame } from './frame.ts';
import { refusalFor } from './host-check.ts';
import { mountLauncher, type Launcher } from './launcher.ts';
import { findOwnScript, readScriptTag } from './script-tag.ts';

export interface BootEnvironment {
  win: Window & { PracticeChat?: unknown };
  fetch: typeof fetch;
  wait(ms: number): Promise<void>;
  /** The single console line when the widget is not shown. */
  report(line: string): void;
}

export const REPORT_PREFIX = 'Practice chat not shown: ';

export function boot({ win, fetch, wait, report }: BootEnvironment): void {
  const existing = win.PracticeChat as PracticeChatApi | undefined;
  // Pasted twice, or loaded again by a single-page app: the first copy stays the only widget.
  if (existing?.loaded) return;
  const doc = win.document;
  const settings = readScriptTag(findOwnScript(doc));

  let launcher: Launcher;
  let frame: ChatFrame | undefined;
  let destroyed = false;
  let isOpen = false;
  // open()/close() called before the launcher exists: applied once it does.
  let wanted: boolean | undefined;

  function setOpen(want: boolean | 'toggle', fromFrame?: boolean) {
    const next = want == 'toggle' ? !(frame ? isOpen : wanted) : want;
    if (destroyed || !frame) {
      wanted = next;
      return;
    }
    if (next == isOpen) return;
    isOpen = next;
    frame.ensure();
    launcher.setOpen(next);
    frame.post({ type: next ? 'open' : 'close' });
    // Closing from inside the panel (Escape, its close button) returns focus to the launcher.
    if (!next && (fromFrame || doc.activeElement == launcher.host)) launcher.button.focus();
    events.emit(next ? 'open' : 'close');
  }

  // The launcher's own listeners go with its element; the configuration request checks `destroyed` when it settles.
  function destroy() {
    if (destroyed) return;
    destroyed = true;
    frame?.remove();
    launcher?.host.remove();
    events.removeAllListeners();
    if (win.PracticeChat == api) delete win.PracticeChat;
  }

  const { api, events } = createApi({ setOpen, destroy }, () => !!frame);
  win.PracticeChat = api;
  replayQueue(api, existing);

  const refuse = (why: string) => destroyed || report(REPORT_PREFIX + why);
  if (typeof settings === 'string') return void refuse(settings);
  const { relayOrigin, clientId } = settings;
  // The patient's own pick on this site wins over the tag's data-locale: the practice wrote the tag for every visitor,
  // the patient chose for themself. Either way the relay chooses the language and writes the launcher's words.
  let locale = (chosenLanguage(win) as string) || settings.locale;

  /** Shows the launcher in `tag`'s language, or, once shown, renames it and the frame in it (the latest pick only). */
  const show = (tag: string) =>
    fetchConfiguration(relayOrigin, clientId, tag, fetch, wait).then((configuration) => {
      if (destroyed || tag != locale) return;
      // A pick whose words could not be fetched leaves the launcher as it is, without a word on the console.
      if (typeof configuration === 'string') return launcher || refuse(configuration);
      // In the visitor's language, chosen by the relay (the patient's pick, data-locale, else the browser's languages).
      const look = configuration.launcher;
      const label = look.label;
      if (launcher) {
        launcher.relabel(look);
        return frame!.retitle(label);
      }
      const refusal = refusalFor(configuration, win.location.hostname);
      if (refusal) return refuse(refusal);
      launcher = mountLauncher(doc, configuration, settings.nonce);
      // The frame learns its configuration, the page's exact origin (its postMessage target) and the language.
      const frameQuery = new URLSearchParams({ client_id: clientId, origin: win.location.origin, locale: look.locale });
      // The message taken apart once (`count` is there for `unread` and `alert`, `locale` for `language`): the loader's size budget pays for
      // each `message.` that survives minification.
      frame = createChatFrame(
        win,
        launcher.shadow,
        relayOrigin,
        frameQuery,
        label,
        ({ type, count, locale: picked }: FrameMessage & { count?: number; locale?: string }) => {
          if (type == 'close') setOpen(false, true);
          // The patient picked a language in the panel: kept for the site's later pages, and the launcher and the
          // frame renamed in it once the relay has written the words (only the latest pick, if answers cross).
          if (type == 'language' && picked != locale) {
            locale = picked!;
            chosenLanguage(win, locale);
            show(locale);
          }
          // Replies while the page is hidden (src/shared/protocol.ts): "(N) " before its title, never anything else. The
          // pattern takes the prefix already there, or (its empty alternative) nothing, so the page's own title stays.
          if (type == 'alert' && settings.alert)
            doc.title = doc.title.replace(/^\(\d+\) |/, count ? `(${count}) ` : '');
          if (type == 'unread') {
            launcher.setUnread(count!);
            events.emit('unread', count!);
          }
        },
      );
      // The frame is created on intent: the first hover, focus or touch of the launcher (or open() from the page).
      // Traces of a practice's page (bench/results.md) showed that making it at idle cost the page's main thread
      // about 2 ms of CPU, and that its loading (another renderer process, the panel's script) competed with the
      // page's own: the loader's script time was 3–4× its CPU time. A visitor who never comes near the chat now
      // never pays it; the hover, focus or touch comes a moment before the click, so the frame is loading by then.
      const ensure = () => destroyed || frame!.ensure();
      const button = launcher.button;
      for (const type of ['pointerenter', 'focus', 'touchstart'])
        button.addEventListener(type, ensure, { once: true, passive: true });
      button.addEventListener('click', () => setOpen('toggle'));
      events.emit('ready');
      if (wanted != null) setOpen(wanted);
    });
  show(locale).catch(() => refuse('an unexpected error'));
}
