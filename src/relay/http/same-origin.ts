import type { MiddlewareHandler } from 'hono';
import { ApiError } from './api-error.ts';
import type { RelayEnv } from './env.ts';
import { LOOPBACK_HOSTS } from '../../shared/configuration.ts';

/** Sent by the frame on every call. A cross-origin page can only add a custom header after a CORS preflight, which the
 * relay never approves for conversation routes, so its presence shows the call comes from the relay's own pages. */
export const FRAME_HEADER = 'X-Practice-Chat';

/**
 * Conversation calls come only from the frame, which the relay serves itself.
 * - Writes must carry the relay's own origin in `Origin`, which browsers always send on a POST.
 * - Browsers send no Origin on a same-origin GET, and send `Sec-Fetch-Site` only to https and loopback origins. A read
 *   is accepted when it carries the frame's header and nothing that names another origin or site.
 * Anything else (another origin, curl or a server without the header, an image or script tag) is `forbidden_origin`.
 * Together with the JSON content type this also rules out cross-site form posts. Calls on a conversation also carry
 * its handle in `Authorization`, which, like the frame's header, a cross-origin page cannot send without a preflight:
 * the relay approves none (it answers no OPTIONS request with any Access-Control-Allow-* header).
 *
 * The relay's own origin is `publicOrigin` (PUBLIC_ORIGIN, required in production). Without it (development only) it
 * is taken from the request, but only for a loopback Host: a DNS-rebinding page (evil.example resolving to 127.0.0.1)
 * sends `Host: evil.example` and `Origin: http://evil.example`, which agree with each other and must still be refused.
 *
 * @example
 * app.use('/v1/conversation/*', sameOrigin({ publicOrigin: null }))
 */
export function sameOrigin({ publicOrigin }: { publicOrigin: string | null }): MiddlewareHandler<RelayEnv> {
  return async function sameOrigin(c, next) {
    const expected = publicOrigin ?? loopbackOrigin(c.req.url);
    if (expected === null) throw new ApiError('forbidden_origin');
    const origin = c.req.header('Origin');
    const fetchSite = c.req.header('Sec-Fetch-Site');
    const allowed =
      origin === expected ||
      (c.req.method === 'GET' &&
        origin === undefined &&
        (fetchSite === undefined || fetchSite === 'same-origin') &&
        c.req.header(FRAME_HEADER) !== undefined);
    if (!allowed) throw new ApiError('forbidden_origin');
    await next();
  };
}

/** The request's own origin when its host is this machine, else null. */
function loopbackOrigin(requestUrl: string): string | null {
  const url = new URL(requestUrl);
  return LOOPBACK_HOSTS.has(url.hostname) ? url.origin : null;
}
