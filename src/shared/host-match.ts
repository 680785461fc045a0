// Whether a page's host may show the widget. Parsed host names are compared, never substrings, so that
// smile-dental.com.evil.example does not pass for smile-dental.com.
import { toAsciiHost } from './domains.ts';

export type HostMatch =
  | { allowed: true; entry: string; how: 'exact' | 'wildcard' }
  | { allowed: false; why: 'no_domains' | 'not_a_host' | 'no_entry_matches' };

/**
 * Matches a page host name (as `location.hostname` gives it) against normalised domain entries:
 * case-insensitive, one trailing dot ignored, IDN in ASCII form, `*.example.com` for subdomains only, no implicit www.
 */
export function matchHost(pageHostname: string, domains: readonly string[]): HostMatch {
  if (domains.length === 0) return { allowed: false, why: 'no_domains' };
  const host = toAsciiHost(pageHostname);
  if (host === null) return { allowed: false, why: 'not_a_host' };
  for (const entry of domains) {
    if (entry === host) return { allowed: true, entry, how: 'exact' };
  }
  for (const entry of domains) {
    if (entry.startsWith('*.') && host.endsWith(entry.slice(1))) return { allowed: true, entry, how: 'wildcard' };
  }
  return { allowed: false, why: 'no_entry_matches' };
}
