// The loader's whole life: read the tag, take over window.PracticeChat (replaying queued calls), fetch the
// configuration, fail closed or mount the launcher, create the frame lazily, and undo all of it on destroy().
import { createApi, replayQueue, type PracticeChatApi } from './api.ts';
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
/** How long after the page's load event the frame is prepared if the visitor has not come near the launcher. */
const IDLE_TIMEOUT_MS = 4000;

export function boot({ win, fetch, wait, report }: BootEnvironment): void {
  const existing = win.PracticeChat;
  // Pasted twice, or loaded again by a single-page app: the first copy stays the only widget.
  if (typeof existing === 'function' && (existing as PracticeChatApi).loaded === true) return;
  const doc = win.document;
  const settings = readScriptTag(findOwnScript(doc));

  let launcher: Launcher | null = null;
  let frame: ChatFrame | null = null;
  let destroyed = false;
  let isOpen = false;
  // open()/close() called before the launcher exists: applied once it does.
  let wanted: boolean | null = null;
  const cleanups: Array<() => void> = [];

  function setOpen(want: boolean | 'toggle', fromFrame = false) {
    if (destroyed) return;
    if (!launcher || !frame) {
      wanted = want === 'toggle' ? !(wanted ?? false) : want;
      return;
    }
    const next = want === 'toggle' ? !isOpen : want;
    if (next === isOpen) return;
    isOpen = next;
    frame.ensure();
    launcher.setOpen(next);
    frame.post({ type: next ? 'open' : 'close' });
    if (next) frame.focus();
    // Closing from inside the panel (Escape, its close button) returns focus to the launcher.
    else if (fromFrame || doc.activeElement === launcher.host) launcher.button.focus();
    events.emit(next ? 'open' : 'close');
  }

  function destroy() {
    if (destroyed) return;
    destroyed = true;
    cleanups.forEach((cleanup) => cleanup());
    frame?.remove();
    launcher?.host.remove();
    events.clear();
    if (win.PracticeChat === api) delete win.PracticeChat;
  }

  const { api, events } = createApi({ setOpen, destroy }, () => launcher !== null);
  win.PracticeChat = api;
  replayQueue(api, existing);

  const refuse = (why: string) => {
    if (!destroyed) report(REPORT_PREFIX + why);
  };
  if (typeof settings === 'string') return refuse(settings);

  fetchConfiguration(settings.relayOrigin, settings.clientId, fetch, wait)
    .then((configuration) => {
      if (destroyed) return;
      if (typeof configuration === 'string') return refuse(configuration);
      const refusal = refusalFor(configuration, win.location.hostname);
      if (refusal) return refuse(refusal);
      // The same choice as the panel's: data-locale, else the browser's language.
      const spanish = (settings.locale ?? win.navigator.language ?? '').toLowerCase().startsWith('es');
      const label = (spanish ? 'Chatear con ' : 'Chat with ') + configuration.bot_name;
      launcher = mountLauncher(doc, configuration, settings.nonce, label);
      // The frame learns its configuration, the page's exact origin (its postMessage target) and the language.
      const frameQuery = new URLSearchParams({ client_id: settings.clientId, origin: win.location.origin });
      if (settings.locale) frameQuery.set('locale', settings.locale);
      frame = createChatFrame(win, launcher.shadow, settings.relayOrigin, frameQuery, label, (message) => {
        if (message.type === 'close') setOpen(false, true);
        if (message.type === 'unread') {
          launcher?.setUnread(message.count);
          events.emit('unread', message.count);
        }
      });
      prepareFrameLazily(launcher, frame);
      launcher.button.addEventListener('click', () => setOpen('toggle'));
      events.emit('ready');
      if (wanted !== null) setOpen(wanted);
    })
    .catch(() => refuse('an unexpected error'));

  /** The frame is created on the first hover, focus or click, or once the page is idle: never during first render. */
  function prepareFrameLazily(target: Launcher, chat: ChatFrame) {
    const ensure = () => chat.ensure();
    for (const type of ['pointerenter', 'focus', 'touchstart'] as const) target.button.addEventListener(type, ensure, { once: true, passive: true });
    const whenIdle = () => {
      if (typeof win.requestIdleCallback === 'function') {
        const id = win.requestIdleCallback(ensure, { timeout: IDLE_TIMEOUT_MS });
        cleanups.push(() => win.cancelIdleCallback(id));
      } else {
        const id = win.setTimeout(ensure, IDLE_TIMEOUT_MS / 2);
        cleanups.push(() => win.clearTimeout(id));
      }
    };
    if (doc.readyState === 'complete') whenIdle();
    else {
      win.addEventListener('load', whenIdle, { once: true });
      cleanups.push(() => win.removeEventListener('load', whenIdle));
    }
  }
}
