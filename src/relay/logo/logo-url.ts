// The relay's own address for a configuration's logo. Browsers receive this instead of the upstream's signed storage
// URL, so a practice's Content-Security-Policy needs only the relay's origin, img-src included.
import type { WebchatConfiguration } from '../../shared/configuration.ts';
import type { ResolvedConfiguration } from '../configuration/configuration-service.ts';

export const LOGO_ROUTE = '/v1/logo';

/** `ORIGIN/v1/logo?client_id=ID&v=HASH`: the content hash changes the URL whenever the logo changes. */
export function relayLogoUrl(relayOrigin: string, clientId: string, hash: string): string {
  const url = new URL(LOGO_ROUTE, relayOrigin);
  url.searchParams.set('client_id', clientId);
  url.searchParams.set('v', hash);
  return url.href;
}

/** The configuration as browsers receive it: the logo, when there is a usable one, on the relay's origin. */
export function browserConfiguration(
  { configuration, logo }: ResolvedConfiguration,
  relayOrigin: string,
): WebchatConfiguration {
  return {
    ...configuration,
    logo_url: logo === null ? null : relayLogoUrl(relayOrigin, configuration.client_id, logo.hash),
  };
}
