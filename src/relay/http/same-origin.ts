import type { MiddlewareHandler } from 'hono';
import { ApiError } from './api-error.ts';
import type { RelayEnv } from './env.ts';

/**
 * Conversation calls come only from the frame, which the relay serves itself: the browser's Origin header must be
 * the relay's own origin. A call from another origin, or with no Origin at all (curl, a server, an old form post),
 * is refused with `forbidden_origin`. Together with the JSON content type this also rules out cross-site form posts.
 *
 * @example
 * app.use('/v1/conversations/*', sameOrigin({ publicOrigin: null }))
 */
export function sameOrigin({ publicOrigin }: { publicOrigin: string | null }): MiddlewareHandler<RelayEnv> {
  return async function sameOrigin(c, next) {
    const expected = publicOrigin ?? new URL(c.req.url).origin;
    if (c.req.header('Origin') !== expected) throw new ApiError('forbidden_origin');
    await next();
  };
}
