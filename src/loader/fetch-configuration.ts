// Fetches the configuration from the relay, retrying a couple of times with backoff when the network or the relay
// fails. A 4xx answer is final: retrying would not change it.
//
// The relay serves this loader too, so a relay that sent a bad configuration could as well send a bad loader: the
// answer is trusted as far as its shape goes. It was normalised by the relay with the shared rules
// (src/shared/configuration.ts) and carries the launcher's look precomputed (src/shared/launcher-look.ts), so the
// loader ships no normalising code. What reaches CSS is still checked with one strict pattern, and a logo is shown
// only from the relay itself.
import type { ConfigurationAnswer } from '../shared/launcher-look.ts';

/** The relay's answer; the loader reads is_active, domains, logo_url and launcher, and checks only those. */
export type LoaderConfiguration = ConfigurationAnswer;

export const RETRY_DELAYS_MS = [400, 1600];

/** #rgb, #rgba, #rrggbb, #rrggbbaa: nothing that could close a declaration or reach a URL. */
const HEX_COLOR = /^#([\da-f]{3,4}){1,2}$/i;

function isConfiguration(value: LoaderConfiguration | null): boolean {
  const look = value?.launcher;
  return (
    typeof value?.is_active === 'boolean' &&
    Array.isArray(value.domains) &&
    HEX_COLOR.test(look?.background as string) &&
    HEX_COLOR.test(look!.color) &&
    typeof look!.opacity === 'number' &&
    typeof look!.label === 'string'
  );
}

export async function fetchConfiguration(
  relayOrigin: string,
  clientId: string,
  /** data-locale as the tag wrote it ('' when unset): the relay chooses the language and writes the launcher's label. */
  locale: string,
  fetchImpl: typeof fetch,
  wait: (ms: number) => Promise<void>,
): Promise<LoaderConfiguration | string> {
  for (let attempt = 0; ; attempt++) {
    try {
      // No credentials option: the relay is on another site, to which a fetch sends no cookie by default (and the
      // relay reads none). Both values go in as they are: the tag's client id matched CLIENT_ID_PATTERN and the locale
      // is a language tag or '' (script-tag.ts), and neither pattern admits a character a query must escape.
      const response = await fetchImpl(
        `${relayOrigin}/v1/webchat-configuration?client_id=${clientId}&locale=${locale}`,
      );
      const status = response.status;
      if (response.ok) {
        const configuration = (await response.json()) as LoaderConfiguration;
        if (!isConfiguration(configuration)) return 'the configuration is malformed';
        // The relay serves the practice's logo itself: any other address is not the relay's answer to trust.
        if (!String(configuration.logo_url).startsWith(relayOrigin + '/')) configuration.logo_url = null;
        return configuration;
      }
      if (status === 404) return `no configuration ${clientId}`;
      if (status < 500 && status !== 429) return `the relay answered ${status}`;
    } catch {
      // A network failure: try again below.
    }
    const delay = RETRY_DELAYS_MS[attempt];
    if (!delay) return 'the configuration could not be fetched';
    await wait(delay);
  }
}
