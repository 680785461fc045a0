import type { MiddlewareHandler } from 'hono';
import { ApiError } from './api-error.ts';
import type { RelayEnv } from './env.ts';

/**
 * Conversation calls come only from the frame, which the relay serves itself. A browser's Origin header must be the
 * relay's own origin. Browsers send no Origin on a same-origin GET, so a GET may instead carry
 * `Sec-Fetch-Site: same-origin`, which only the browser itself sets. A call from another origin, or with neither
 * header (curl, a server, an old form post), is refused with `forbidden_origin`. Together with the JSON content type
 * this also rules out cross-site form posts.
 *
 * @example
 * app.use('/v1/conversations/*', sameOrigin({ publicOrigin: null }))
 */
export function sameOrigin({ publicOrigin }: { publicOrigin: string | null }): MiddlewareHandler<RelayEnv> {
  return async function sameOrigin(c, next) {
    const expected = publicOrigin ?? new URL(c.req.url).origin;
    const origin = c.req.header('Origin');
    const sameSiteRead = origin === undefined && c.req.method === 'GET' && c.req.header('Sec-Fetch-Site') === 'same-origin';
    if (origin !== expected && !sameSiteRead) throw new ApiError('forbidden_origin');
    await next();
  };
}
