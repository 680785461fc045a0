// Fetches the configuration from the relay, retrying a couple of times with backoff when the network or the relay
// fails, and parses it with the shared rules. A 4xx answer is final: retrying would not change it.
import { parseWebchatConfiguration, type WebchatConfiguration } from '../shared/configuration.ts';

export const RETRY_DELAYS_MS = [400, 1600];

export async function fetchConfiguration(
  relayOrigin: string,
  clientId: string,
  fetchImpl: typeof fetch,
  wait: (ms: number) => Promise<void>,
): Promise<WebchatConfiguration | string> {
  for (let attempt = 0; ; attempt++) {
    try {
      const response = await fetchImpl(`${relayOrigin}/v1/webchat-configuration?client_id=${encodeURIComponent(clientId)}`, {
        credentials: 'omit',
      });
      if (response.ok) return parseWebchatConfiguration(await response.json()) ?? 'the configuration is malformed';
      if (response.status === 404) return `no configuration ${clientId}`;
      if (response.status < 500 && response.status !== 429) return `the relay answered ${response.status}`;
    } catch {
      // A network failure: try again below.
    }
    const delay = RETRY_DELAYS_MS[attempt];
    if (delay === undefined) return 'the configuration could not be fetched';
    await wait(delay);
  }
}
