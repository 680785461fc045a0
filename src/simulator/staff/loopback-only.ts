import type { MiddlewareHandler } from 'hono';
import { apiError } from '../errors.ts';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The staff page and its API carry no credential (they stand for the practice's own tools), so they answer only a
 * browser on this machine: a request whose Host is not a loopback name is refused, which also defeats DNS rebinding,
 * and so is one whose Origin is another site's, so no page elsewhere can post replies or resolve conversations.
 *
 * @example
 * app.use('/staff/*', loopbackOnly())
 */
export function loopbackOnly(): MiddlewareHandler {
  return async function loopbackOnly(c, next) {
    const url = new URL(c.req.url);
    if (!LOOPBACK_NAMES.has(url.hostname)) {
      return apiError(c, 403, 'forbidden_host', 'The staff page answers only on localhost, 127.0.0.1 or [::1].');
    }
    const origin = c.req.header('Origin');
    if (origin !== undefined && origin !== url.origin) {
      return apiError(c, 403, 'forbidden_origin', 'The staff API is not open to other sites.');
    }
    await next();
  };
}
