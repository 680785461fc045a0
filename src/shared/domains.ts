// Domain entries of a webchat configuration, reduced to what the loader and the frame's CSP can both enforce:
// an ASCII, lower-case host name, or `*.` plus one, with nothing else (no scheme, port, path or credentials).

/** Loopback literals stay usable for development and tests (ARCHITECTURE.md); every other IP literal is dropped. */
const ALLOWED_IP_LITERALS = new Set(['127.0.0.1', '[::1]']);
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;
// Anything that would make the entry more than a host: scheme/port separator, path, query, fragment, userinfo,
// escapes, whitespace. Checked before parsing, because the URL parser would silently drop or fold them.
const NOT_A_HOST = /[/:?#@\\%\s]/;
// What the parser made of it must be letters, digits and hyphens in dotted labels (IDN is punycode by then). The URL
// parser lets through characters like ; , ' " that would break out of a CSP header, so this is checked after it.
const LDH_HOST = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/;
/** The longest host name DNS can carry (RFC 1035: 255 octets on the wire), written as text. */
const MAX_HOST_LENGTH = 253;

/**
 * The ASCII lower-case form of a host name (IDN to punycode, one trailing dot dropped), or null when the text is not
 * a plain host. `[::1]` is the only IPv6 form accepted.
 */
export function toAsciiHost(text: string): string | null {
  let host = text.trim().toLowerCase();
  if (host === '[::1]') return host;
  if (host.endsWith('.')) host = host.slice(0, -1);
  // Held to a name's length before the patterns and the parser: the service's text can be as long as its answer.
  if (host === '' || host.length > MAX_HOST_LENGTH || NOT_A_HOST.test(host) || host.includes('*')) return null;
  let parsed: string;
  try {
    parsed = new URL(`http://${host}`).hostname;
  } catch {
    return null;
  }
  // The parser turns odd IPv4 spellings (0x7f.1, 2130706433) into dotted quads: judge what it made of the text.
  if (IPV4.test(parsed)) return ALLOWED_IP_LITERALS.has(parsed) ? parsed : null;
  if (!LDH_HOST.test(parsed)) return null;
  // A single label is a machine on someone's network, not a practice website; localhost is the one exception.
  if (!parsed.includes('.') && parsed !== 'localhost') return null;
  return parsed;
}

/**
 * One domain entry as the loader and the CSP will use it: a host, or `*.` + a host of at least two labels
 * (`*.example.com`, never `*` or `*.com`). Null for anything else.
 */
export function normalizeDomainEntry(entry: string): string | null {
  const trimmed = entry.trim();
  if (trimmed.startsWith('*.')) {
    const rest = toAsciiHost(trimmed.slice(2));
    if (rest === null || !rest.includes('.') || IPV4.test(rest) || rest.startsWith('[')) return null;
    return `*.${rest}`;
  }
  return toAsciiHost(trimmed);
}

/** Every usable entry, normalised, without duplicates, in the order given. */
export function normalizeDomainList(entries: readonly string[]): string[] {
  const kept: string[] = [];
  for (const entry of entries) {
    const normalized = normalizeDomainEntry(entry);
    if (normalized !== null && !kept.includes(normalized)) kept.push(normalized);
  }
  return kept;
}
