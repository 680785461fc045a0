// Whether a page's host may show the widget. Parsed host names are compared, never substrings, so that
// smile-dental.com.evil.example does not pass for smile-dental.com. Kept small and free of the domain normaliser:
// the loader ships it, and the entries it gets were normalised by the relay (src/shared/domains.ts).

export type HostMatch =
  | { allowed: true; entry: string; how: 'exact' | 'wildcard' }
  | { allowed: false; why: 'no_domains' | 'no_entry_matches' };

/**
 * Matches a page's host name, as the URL parser gives it (`location.hostname`, `new URL(...).hostname`: lower case,
 * IDN already in ASCII), against normalised domain entries: one trailing dot ignored, `*.example.com` for subdomains
 * only, no implicit www. An entry that is not a normalised host (`*`, `*.`, a scheme) can never match.
 */
export function matchHost(pageHostname: string, domains: readonly string[]): HostMatch {
  if (domains.length === 0) return { allowed: false, why: 'no_domains' };
  const host = pageHostname.toLowerCase().replace(/\.$/, '');
  for (const entry of domains) {
    if (entry === host && !host.includes('*')) return { allowed: true, entry, how: 'exact' };
  }
  for (const entry of domains) {
    const suffix = entry.slice(1);
    // `*.` plus at least one dotted name: a bare `*` or `*.` can never cover everything.
    if (entry.startsWith('*.') && suffix.length > 2 && suffix.indexOf('.', 1) > 0 && host.endsWith(suffix)) {
      return { allowed: true, entry, how: 'wildcard' };
    }
  }
  return { allowed: false, why: 'no_entry_matches' };
}
