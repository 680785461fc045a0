// The webchat configuration as browsers receive it from the relay, and the rules that make any upstream value safe
// to put in a style, an image source, a text node or a CSP header. The relay normalises once; the loader and the
// frame parse the relay's answer with the same rules, so a broken or hostile value never reaches the page.
// Hand-written rather than zod: the loader ships these rules inside its small size budget (test/unit/bundles).
import { normalizeDomainList } from './domains.ts';

export interface WebchatConfiguration {
  client_id: string;
  is_active: boolean;
  /** Normalised host entries: `host` or `*.host`. */
  domains: string[];
  logo_url: string | null;
  /** `#rgb`, `#rgba`, `#rrggbb` or `#rrggbbaa`, lower case. */
  icon_color: string;
  /** Percent, 0–100. */
  icon_opacity: number;
  bot_name: string;
  google_tag_id: string | null;
}

export const DEFAULT_ICON_COLOR = '#0f766e';
export const DEFAULT_ICON_OPACITY = 100;
export const DEFAULT_BOT_NAME = 'Aimee';
export const BOT_NAME_MAX_LENGTH = 40;

// Opaque only: a colour with alpha draws the launcher's white icon on whatever the page shows through it (1.5:1 on a
// white page), which no contrast check here can know, so it is refused like any other unusable colour.
const HEX_COLOR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;
// GA4 (G-), Google tag (GT-), Ads (AW-), Floodlight (DC-), and legacy Universal Analytics (UA-n-n).
const GOOGLE_TAG_ID = /^(?:(?:G|GT|AW|DC)-[A-Z0-9]{4,20}|UA-\d{4,12}-\d{1,4})$/;
/** Host names of this machine: http to them is allowed in development (logos here, the upstream in the relay). */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);
const BROWSER_LOGO = /^(?:https:\/\/[^/]|http:\/\/(?:localhost|127\.0\.0\.1|\[::1\])[:/])/i;

/** A strict opaque hex colour, or the default: `red;background:url(...)`, `var(--x)` and `</style>` never pass. */
export function normalizeIconColor(value: unknown): string {
  return typeof value === 'string' && HEX_COLOR.test(value.trim()) ? value.trim().toLowerCase() : DEFAULT_ICON_COLOR;
}

/** A whole percentage from 0 to 100; anything that is not a finite number is fully opaque. */
export function normalizeIconOpacity(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return DEFAULT_ICON_OPACITY;
  return Math.min(100, Math.max(0, Math.round(value)));
}

/**
 * An https: logo URL, or http: to a loopback host when `allowLoopbackHttp` (development); null for anything else
 * (javascript:, data:, relative, malformed).
 */
export function normalizeLogoUrl(value: unknown, allowLoopbackHttp: boolean): string | null {
  if (typeof value !== 'string' || value.length > 4096) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol === 'https:') return url.href;
  if (url.protocol === 'http:' && allowLoopbackHttp && LOOPBACK_HOSTS.has(url.hostname)) return url.href;
  return null;
}

/** Plain text: markup and control characters removed, spaces folded, capped, a default when nothing is left. */
export function normalizeBotName(value: unknown): string {
  if (typeof value !== 'string') return DEFAULT_BOT_NAME;
  const text = value
    .replace(/<[^>]*>?/g, '')
    // Fold line breaks and tabs to spaces before dropping the remaining control characters.
    .replace(/\s+/g, ' ')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what this strips.
    .replace(/[\u0000-\u001f\u007f-\u009f<>]/g, '')
    // Dropping a character between two spaces leaves two: fold again, so normalising twice equals once.
    .replace(/ {2,}/g, ' ')
    .trim();
  const capped = Array.from(text).slice(0, BOT_NAME_MAX_LENGTH).join('').trim();
  return capped === '' ? DEFAULT_BOT_NAME : capped;
}

/** A GA4 measurement id, the only kind of tag the panel's coarse analytics can send to. */
export const isGa4TagId = (tagId: string | null): tagId is string => tagId !== null && /^G-[A-Z0-9]{4,20}$/.test(tagId);

/** A Google tag id (G-…, GT-…, AW-…, DC-…, UA-…-…), or null: an empty or odd value sends no analytics at all. */
export function normalizeGoogleTagId(value: unknown): string | null {
  return typeof value === 'string' && GOOGLE_TAG_ID.test(value.trim()) ? value.trim() : null;
}

/** The fields of a configuration before normalisation, as loosely as they may arrive. */
export interface ConfigurationInput {
  client_id: string;
  is_active: unknown;
  domains: readonly unknown[];
  logo_url: unknown;
  icon_color: unknown;
  icon_opacity: unknown;
  bot_name: unknown;
  google_tag_id: unknown;
}

export function normalizeConfiguration(input: ConfigurationInput, allowLoopbackHttp: boolean): WebchatConfiguration {
  return {
    client_id: input.client_id,
    is_active: input.is_active === true,
    domains: normalizeDomainList(input.domains.filter((entry): entry is string => typeof entry === 'string')),
    logo_url: normalizeLogoUrl(input.logo_url, allowLoopbackHttp),
    icon_color: normalizeIconColor(input.icon_color),
    icon_opacity: normalizeIconOpacity(input.icon_opacity),
    bot_name: normalizeBotName(input.bot_name),
    google_tag_id: normalizeGoogleTagId(input.google_tag_id),
  };
}

/**
 * Parses the relay's answer in a browser: null unless it has the shape of a configuration. The relay has normalised
 * it; here only what reaches a style, a URL or a text is checked again (colour, opacity, logo scheme, name), so the
 * page stays safe even if the relay in front of it is misconfigured. Domain entries are kept as strings: the host
 * matcher compares them exactly and never widens a malformed entry. Kept small: the loader ships it.
 */
export function parseWebchatConfiguration(json: unknown): WebchatConfiguration | null {
  if (typeof json !== 'object' || json === null) return null;
  const value = json as Record<string, unknown>;
  const { client_id, is_active, domains, logo_url, bot_name } = value;
  if (typeof client_id !== 'string' || client_id === '' || typeof is_active !== 'boolean' || !Array.isArray(domains)) {
    return null;
  }
  return {
    client_id,
    is_active,
    domains: domains.filter((entry): entry is string => typeof entry === 'string'),
    // https, or http to a loopback host (the relay allows those only in development): the scheme is what matters
    // here, and a prefix check keeps URL parsing out of the loader.
    logo_url: typeof logo_url === 'string' && BROWSER_LOGO.test(logo_url) ? logo_url : null,
    icon_color: normalizeIconColor(value.icon_color),
    icon_opacity: normalizeIconOpacity(value.icon_opacity),
    bot_name:
      typeof bot_name === 'string' && bot_name.trim() !== ''
        ? bot_name.trim().slice(0, BOT_NAME_MAX_LENGTH)
        : DEFAULT_BOT_NAME,
    google_tag_id: normalizeGoogleTagId(value.google_tag_id),
  };
}

/** What a client id may look like; anything else is refused before it reaches a URL, a cache key or upstream. */
export const CLIENT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
