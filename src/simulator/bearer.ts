import type { MiddlewareHandler } from 'hono';
import type { TokenStore } from './tokens.ts';

// The document: "The word Bearer, a single space and the token make up the header value." Nothing looser is accepted,
// so a client that sends `bearer x` or two spaces finds out here rather than against the real service.
const BEARER = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/;

/**
 * Rejects a request whose `Authorization` is not exactly `Bearer <valid token>` with 401 and `WWW-Authenticate: Bearer`.
 *
 * @example
 * app.get('/api/calls/', bearerAuth({ tokens }), listCalls)
 */
export function bearerAuth(options: { tokens: TokenStore }): MiddlewareHandler {
  return async function bearerAuth(c, next) {
    const header = c.req.header('Authorization');
    if (header === undefined || header === '') {
      c.header('WWW-Authenticate', 'Bearer');
      return c.json({ detail: 'Authentication credentials were not provided.', code: 'not_authenticated' }, 401);
    }
    const match = BEARER.exec(header);
    if (!match?.[1]) {
      c.header('WWW-Authenticate', 'Bearer');
      return c.json(
        { detail: 'Invalid Authorization header: expected "Bearer <token>".', code: 'not_authenticated' },
        401,
      );
    }
    if (options.tokens.check(match[1]) !== 'valid') {
      c.header('WWW-Authenticate', 'Bearer');
      return c.json({ detail: 'Given token not valid or expired.', code: 'token_invalid' }, 401);
    }
    await next();
  };
}
