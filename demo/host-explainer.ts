// "Would the widget show on https://www.smile-dental.com?" — the shared host matcher's answer, explained.
import { toAsciiHost } from '../src/shared/domains.ts';
import { matchHost } from '../src/shared/host-match.ts';

export interface HostAnswer {
  shows: boolean;
  explanation: string;
}

/** The host name from what someone typed: a full address or a bare host. */
export function hostFromInput(input: string): string | null {
  const text = input.trim();
  if (text === '' || /\s/.test(text)) return null;
  try {
    const hostname = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`).hostname;
    // Only a real host name (or localhost) counts: never percent-encoded text or something the parser made up.
    return toAsciiHost(hostname);
  } catch {
    return null;
  }
}

export function explainHost(input: string, domains: readonly string[]): HostAnswer {
  const host = hostFromInput(input);
  if (host === null) return { shows: false, explanation: 'That is not a website address.' };
  const match = matchHost(host, domains);
  if (match.allowed) {
    return {
      shows: true,
      explanation:
        match.how === 'exact'
          ? `Yes: ${host} is listed exactly ("${match.entry}").`
          : `Yes: ${host} is a subdomain of ${match.entry.slice(2)}, covered by the wildcard entry "${match.entry}".`,
    };
  }
  if (match.why === 'no_domains')
    return { shows: false, explanation: 'No: no domains are allowed, so the widget shows nowhere.' };
  const bare = host.startsWith('www.') ? host.slice(4) : null;
  if (bare !== null && domains.includes(bare)) {
    return {
      shows: false,
      explanation: `No: only ${bare} is listed, and www.${bare} is a different host (there is no implicit www). Add www.${bare} or *.${bare}.`,
    };
  }
  if (domains.includes(`*.${host}`)) {
    return {
      shows: false,
      explanation: `No: "*.${host}" covers subdomains of ${host}, not ${host} itself. Add ${host} as well.`,
    };
  }
  if (!host.startsWith('www.') && domains.includes(`www.${host}`)) {
    return {
      shows: false,
      explanation: `No: only www.${host} is listed, and ${host} is a different host. Add ${host} too.`,
    };
  }
  return {
    shows: false,
    explanation: `No: ${host} is not one of the allowed domains, and is not a subdomain covered by a wildcard entry.`,
  };
}
