// The messages between the loader (on the practice's page) and the chat frame (on the relay's origin). Both sides
// post with an exact target origin and check `event.origin` and `event.source` before parsing with these functions;
// anything that does not parse is ignored. Hand-written, not zod: the loader ships this inside its size budget.
import { languageTag } from './language-tag.ts';

/** Marks our messages among whatever else a page posts around. */
const TAG = 'practice-chat/1';

/**
 * Loader → frame: the panel was opened or closed by the visitor or the page's API. The demo page also sends
 * `configure` to its preview frame (never accepted outside preview mode); the configuration is parsed by the frame.
 */
export type HostMessage = { type: 'open' } | { type: 'close' } | { type: 'configure'; configuration: unknown };

/** Frame → loader. */
export type FrameMessage =
  | { type: 'ready' }
  /** The visitor closed the panel (close button or Escape): the loader hides the frame and refocuses the launcher. */
  | { type: 'close' }
  /** Bot or agent messages that arrived while the panel was closed. */
  | { type: 'unread'; count: number }
  /**
   * Bot or agent messages that arrived while the page was hidden, for the "(N) " the loader puts before the page's
   * title; 0 once the page is visible again. A count only: the title is the host page's, read by all its scripts.
   */
  | { type: 'alert'; count: number }
  /**
   * The patient picked the panel's language (or the panel reopened in an earlier pick): the loader names the launcher
   * and the frame in it and keeps the code for the site's later pages. A language code only, never anything said.
   */
  | { type: 'language'; locale: string };

// The loader reads tags from its script tag and storage as well as from the frame: one rule for all three.
export { languageTag };

export type Envelope<T> = T & { tag: typeof TAG };

export const envelope = <T extends HostMessage | FrameMessage>(message: T): Envelope<T> => ({ ...message, tag: TAG });

function tagged(data: unknown): data is { tag: string; type: unknown; count?: unknown } {
  return typeof data === 'object' && data !== null && (data as { tag?: unknown }).tag === TAG;
}

export function parseHostMessage(data: unknown): HostMessage | null {
  if (!tagged(data)) return null;
  if (data.type === 'configure')
    return { type: 'configure', configuration: (data as { configuration?: unknown }).configuration };
  return data.type === 'open' || data.type === 'close' ? { type: data.type } : null;
}

export const parseFrameMessage = (data: unknown): FrameMessage | null => parseFrameMessageWith(data, languageTag);

/**
 * parseFrameMessage with the language tag check passed in. The loader's second file (src/loader/frame.ts) is handed
 * loader.js's own check rather than ship a copy of it: each of the loader's two files has a size budget.
 */
export function parseFrameMessageWith(data: unknown, isLanguageTag: (value: unknown) => string): FrameMessage | null {
  // Object(): null and primitives become objects without our tag, so one destructuring reads any value safely.
  const { tag, type, count, locale } = Object(data) as {
    tag?: unknown;
    type?: FrameMessage['type'];
    count?: unknown;
    locale?: unknown;
  };
  if (tag !== TAG) return null;
  if (type === 'ready' || type === 'close') return { type };
  if (type === 'language') return isLanguageTag(locale) ? { type, locale: locale as string } : null;
  return (type === 'unread' || type === 'alert') &&
    Number.isInteger(count) &&
    (count as number) >= 0 &&
    (count as number) < 1e6
    ? { type, count: count as number }
    : null;
}
