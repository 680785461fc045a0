// Fails closed: the launcher is mounted only for an active configuration that names this page's host. The relay's
// entries are already normalised (lower-case ASCII `host` or `*.host`, src/shared/domains.ts) and `location.hostname`
// is lower-case ASCII too, so plain comparison is enough: no parsing here.
import type { LoaderConfiguration } from './fetch-configuration.ts';

/** null when the widget may show here, else why not (for the single console line). */
export function refusalFor({ is_active, domains }: LoaderConfiguration, hostname: string): string | null {
  if (!is_active) return 'the chat is not active';
  if (!domains.length) return 'no domains are allowed';
  // `*.example.com` covers subdomains at any depth, never example.com itself. A trailing-dot host (www.example.com.)
  // matches no entry, since the relay's entries carry no dot at the end, and is refused like any other host: a CSP
  // host-source cannot carry the dot either, so the relay's frame-ancestors would refuse the panel under a launcher
  // that shows. The console line shows the dot.
  return domains.some((entry) => entry === hostname || (entry.startsWith('*.') && hostname.endsWith(entry.slice(1))))
    ? null
    : `${hostname} is not an allowed domain`;
}
