import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit as honoBodyLimit } from 'hono/body-limit';
import type { RelayEnv } from './env.ts';

/**
 * Refuses a body longer than `maxSize` bytes with `onError`'s answer.
 *
 * Hono's bodyLimit starts by looking at `c.req.raw.body`, which on @hono/node-server builds a whole WHATWG Request
 * (headers copied, an AbortController, a web stream over Node's request) that the route then reads through: on a
 * message send that was a sixth of the relay's CPU. A Node request that declares its length (Content-Length, no
 * Transfer-Encoding) cannot carry more than it declared, since Node's HTTP parser reads exactly that many bytes as its
 * body: its declared length is checked, and the route reads the body straight from Node's stream (c.req.json()).
 * Anything else (a chunked body, or app.request() without a Node request) goes through Hono's, which counts the bytes
 * as they come.
 *
 * @example
 * app.use('/v1/*', bodyLimit({ maxSize: 16 * 1024, onError: (c) => c.json({ error: 'too large' }, 413) }))
 */
export function bodyLimit({
  maxSize,
  onError,
}: {
  maxSize: number;
  onError: (c: Context<RelayEnv>) => Response | Promise<Response>;
}): MiddlewareHandler<RelayEnv> {
  const counting = honoBodyLimit({ maxSize, onError });
  return async function bodyLimit(c, next) {
    const declared = declaredLength(c.env);
    if (declared === null) return counting(c, next);
    if (declared > maxSize) return onError(c);
    await next();
  };
}

/**
 * The length an HTTP/1 request declares for its body, or null when it declares none that Node's parser holds it to
 * (HTTP/2 frames its data otherwise).
 */
function declaredLength(env: unknown): number | null {
  if (typeof env !== 'object' || env === null || !('incoming' in env)) return null;
  const incoming = env.incoming;
  if (typeof incoming !== 'object' || incoming === null || !('headers' in incoming)) return null;
  if (!('httpVersionMajor' in incoming) || incoming.httpVersionMajor !== 1) return null;
  const headers = incoming.headers as Record<string, string | string[] | undefined>;
  const length = headers['content-length'];
  if (headers['transfer-encoding'] !== undefined || typeof length !== 'string' || !/^\d{1,15}$/.test(length)) {
    return null;
  }
  return Number(length);
}
