import type { MiddlewareHandler } from 'hono';
import { ApiError } from './api-error.ts';
import type { RelayEnv } from './env.ts';

const JSON_TYPE = /^application\/json\s*(?:;|$)/i;

/**
 * Requests that carry a body must say it is JSON. text/plain and form types are refused: they are the types a
 * cross-site page can send without a CORS preflight.
 *
 * @example
 * app.post('/v1/conversations', requireJson(), handler)
 */
export function requireJson(): MiddlewareHandler<RelayEnv> {
  return async function requireJson(c, next) {
    if (!JSON_TYPE.test(c.req.header('Content-Type') ?? '')) throw new ApiError('unsupported_media_type');
    await next();
  };
}

/** Reads a JSON body, or fails with `bad_request` (never echoing the body). */
export async function readJson(c: { req: { json(): Promise<unknown> } }): Promise<unknown> {
  try {
    return await c.req.json();
  } catch {
    throw new ApiError('bad_request', undefined, 'The body is not valid JSON.');
  }
}
