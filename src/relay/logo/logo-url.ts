// The relay's own address for a configuration's logo. Browsers receive this instead of the upstream's signed storage
// URL, so a practice's Content-Security-Policy needs only the relay's origin, img-src included.

export const LOGO_ROUTE = '/v1/logo';

/** `ORIGIN/v1/logo?client_id=ID&v=HASH`: the content hash changes the URL whenever the logo changes. */
export function relayLogoUrl(relayOrigin: string, clientId: string, hash: string): string {
  const url = new URL(LOGO_ROUTE, relayOrigin);
  url.searchParams.set('client_id', clientId);
  url.searchParams.set('v', hash);
  return url.href;
}
