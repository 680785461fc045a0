// A wildcard entry whose base is a public suffix (`*.co.uk`, `*.github.io`, `*.herokuapp.com`) would let every site
// registered under that suffix show and frame a practice's widget: one mistaken entry, thousands of strangers. The
// Public Suffix List (with its private section, where github.io and herokuapp.com live) says which bases those are.
// tldts is a maintained, regularly updated copy of the list; it stays in the relay, out of the browser bundles.
import { getPublicSuffix } from 'tldts';

/** True when `host` (ASCII, lower case) is itself a public suffix, ICANN or private. */
export function isPublicSuffix(host: string): boolean {
  return getPublicSuffix(host, { allowPrivateDomains: true }) === host;
}

/** The domain entries without wildcards on a public suffix; every other entry is kept as it is. */
export function withoutPublicSuffixWildcards(domains: readonly string[]): string[] {
  return domains.filter((entry) => !(entry.startsWith('*.') && isPublicSuffix(entry.slice(2))));
}
