import type { Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { timingSafeEqual } from 'node:crypto';
import type { SimulatorContext } from '../context.ts';

type OAuthError = 'invalid_request' | 'unsupported_grant_type' | 'invalid_grant';

// The token endpoint answers in the OAuth form (RFC 6749 §5.2), not the API's {detail, code}.
function oauthError(c: Context, status: ContentfulStatusCode, error: OAuthError, description: string): Response {
  c.header('Cache-Control', 'no-store');
  return c.json({ error, error_description: description }, status);
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** `POST /api/oauth/token/`: the documented password grant, form-encoded. */
export function registerTokenRoutes(app: Hono, ctx: SimulatorContext): void {
  app.post('/api/oauth/token/', async (c) => {
    ctx.counters.tokenRequests++;
    const mediaType = (c.req.header('Content-Type') ?? '').split(';')[0]?.trim().toLowerCase();
    if (mediaType !== 'application/x-www-form-urlencoded') {
      return oauthError(c, 400, 'invalid_request', 'The request must be application/x-www-form-urlencoded.');
    }
    const form = new URLSearchParams(await c.req.text());
    const username = form.get('username');
    const password = form.get('password');
    const grantType = form.get('grant_type') ?? 'password';
    const format = form.get('format') ?? 'json';
    if (!username) return oauthError(c, 400, 'invalid_request', 'username is required.');
    if (!password) return oauthError(c, 400, 'invalid_request', 'password is required.');
    if (grantType !== 'password')
      return oauthError(c, 400, 'unsupported_grant_type', 'Only the password grant is supported.');
    if (format !== 'json') return oauthError(c, 400, 'invalid_request', 'format must be json.');
    // Both compared, always, so timing says nothing about which one was wrong.
    const userOk = sameSecret(username, ctx.account.username);
    const passwordOk = sameSecret(password, ctx.account.password);
    if (!userOk || !passwordOk) return oauthError(c, 401, 'invalid_grant', 'Invalid credentials given.');

    const token = ctx.tokens.issue();
    c.header('Cache-Control', 'no-store');
    return c.json({ ...token, token_type: 'Bearer', scope: 'offline_access' }, 200);
  });
}
