// Fails closed: the launcher is mounted only for an active configuration that names this page's host.
import type { WebchatConfiguration } from '../shared/configuration.ts';
import { matchHost } from '../shared/host-match.ts';

/** null when the widget may show here, else why not (for the single console line). */
export function refusalFor(configuration: WebchatConfiguration, hostname: string): string | null {
  if (!configuration.is_active) return 'the chat is not active';
  const match = matchHost(hostname, configuration.domains);
  if (match.allowed) return null;
  return match.why === 'no_domains' ? 'no domains are allowed' : `${hostname} is not an allowed domain`;
}
