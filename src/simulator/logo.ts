import { createHmac, timingSafeEqual } from 'node:crypto';

export const LOGO_PATH = '/media/logo.svg';

/** The file behind the signed logo URL, with the Content-Type the storage host claims for it. */
export interface LogoImage {
  body: string | Uint8Array<ArrayBuffer>;
  contentType: string;
}

/** A small real logo (a tooth in a circle), so the widget has an actual image to load. */
export const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="64" height="64" role="img" aria-label="Practice logo">' +
  '<circle cx="32" cy="32" r="30" fill="#0f766e"/>' +
  '<path d="M23 16c-5 0-9 4-9 10 0 6 3 9 4 14 1 6 2 10 5 10s3-5 4-9c1-3 2-5 5-5s4 2 5 5c1 4 1 9 4 9s4-4 5-10c1-5 4-8 4-14 0-6-4-10-9-10-4 0-6 2-9 2s-5-2-9-2z" fill="#fff"/>' +
  '</svg>';

export interface LogoSigner {
  /** A URL on `origin` that expires `lifetimeSeconds` from now. */
  signedUrl(origin: string): string;
  verify(
    expires: string | undefined,
    signature: string | undefined,
  ): { ok: true; remainingSeconds: number } | { ok: false };
}

/**
 * Time-limited signed logo URLs, like the service's storage links: HMAC-SHA256 over the path and the expiry, so
 * neither can be changed, checked against the simulator's clock so tests can expire them.
 */
export function createLogoSigner(options: { secret: string; lifetimeSeconds: number; now: () => number }): LogoSigner {
  const sign = (expires: string): Buffer =>
    createHmac('sha256', options.secret).update(`${LOGO_PATH}\n${expires}`).digest();
  const nowSeconds = () => Math.floor(options.now() / 1000);

  return {
    signedUrl(origin) {
      const expires = String(nowSeconds() + options.lifetimeSeconds);
      const url = new URL(LOGO_PATH, origin);
      url.searchParams.set('expires', expires);
      url.searchParams.set('signature', sign(expires).toString('hex'));
      return url.toString();
    },
    verify(expires, signature) {
      if (!expires || !/^[0-9]{1,12}$/.test(expires) || !signature || !/^[0-9a-f]{64}$/.test(signature))
        return { ok: false };
      if (!timingSafeEqual(sign(expires), Buffer.from(signature, 'hex'))) return { ok: false };
      const remainingSeconds = Number(expires) - nowSeconds();
      return remainingSeconds > 0 ? { ok: true, remainingSeconds } : { ok: false };
    },
  };
}
