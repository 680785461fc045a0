// "Share this preview": the edited settings and the preview's switches in the URL fragment, which browsers never send
// to a server. What comes back from a fragment is parsed field by field, like any other input: a hand-edited or
// truncated link restores what it can and ignores the rest.
import type { Draft } from './draft.ts';
import { LOCALE_TAGS, type LocaleTag } from '../src/shared/locales/locale-list.ts';

export interface View {
  device: 'desktop' | 'phone';
  theme: 'light' | 'dark';
  /** The patient's language the preview speaks (every locale the widget has, right-to-left included). */
  locale: LocaleTag;
  /**
   * What the open panel shows: the greeting with its suggestions (what a patient sees first, and all of it fits at
   * once), or a short sample exchange under the greeting.
   */
  conversation: 'greeting' | 'sample';
}

export const DEFAULT_VIEW: View = { device: 'desktop', theme: 'light', locale: 'en', conversation: 'greeting' };

export interface Shared {
  draft: Partial<Draft>;
  view: View;
}

/** `#preview=<base64url JSON>`; UTF-8, so an accented assistant's name survives. */
export function shareFragment(draft: Draft, view: View): string {
  const json = JSON.stringify({ ...draft, ...view });
  const bytes = new TextEncoder().encode(json);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `#preview=${btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}`;
}

const MAX_FRAGMENT = 8192;
const text = (value: unknown, max: number) => (typeof value === 'string' && value.length <= max ? value : undefined);
const oneOf = <T extends string>(value: unknown, options: readonly T[], fallback: T): T =>
  options.includes(value as T) ? (value as T) : fallback;

/** The settings a fragment carries, or null when it carries none (or not ours). */
export function parseShareFragment(hash: string): Shared | null {
  const match = /^#preview=([A-Za-z0-9_-]{1,8192})$/.exec(hash.slice(0, MAX_FRAGMENT + 9));
  if (!match) return null;
  let value: unknown;
  try {
    const binary = atob(match[1]!.replace(/-/g, '+').replace(/_/g, '/'));
    value = JSON.parse(
      new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))),
    );
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const input = value as Record<string, unknown>;
  const draft: Partial<Draft> = {};
  const put = <K extends keyof Draft>(key: K, field: Draft[K] | undefined) => {
    if (field !== undefined) draft[key] = field;
  };
  put('clientId', text(input.clientId, 128));
  put('iconColor', text(input.iconColor, 64));
  put(
    'iconOpacity',
    typeof input.iconOpacity === 'number' && Number.isFinite(input.iconOpacity) ? input.iconOpacity : undefined,
  );
  put('logoUrl', text(input.logoUrl, 4096));
  put('botName', text(input.botName, 200));
  put('active', typeof input.active === 'boolean' ? input.active : undefined);
  put('domains', text(input.domains, 4000));
  put('googleTagId', text(input.googleTagId, 64));
  return {
    draft,
    view: {
      device: oneOf(input.device, ['desktop', 'phone'], DEFAULT_VIEW.device),
      theme: oneOf(input.theme, ['light', 'dark'], DEFAULT_VIEW.theme),
      locale: oneOf(input.locale, LOCALE_TAGS, DEFAULT_VIEW.locale),
      conversation: oneOf(input.conversation, ['greeting', 'sample'], DEFAULT_VIEW.conversation),
    },
  };
}
