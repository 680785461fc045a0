import type { Context } from 'hono';

/**
 * The address quotas are counted against. Behind a reverse proxy (TRUST_PROXY) it is the last X-Forwarded-For entry,
 * the one the proxy itself added; earlier entries are whatever the client claimed and are ignored.
 */
export function clientAddress(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = c.req.header('X-Forwarded-For')?.split(',').at(-1)?.trim();
    if (forwarded) return forwarded;
  }
  return socketAddress(c.env) ?? 'unknown';
}

/** @hono/node-server puts Node's request on `env.incoming`; under app.request() there is none. */
function socketAddress(env: unknown): string | undefined {
  if (typeof env !== 'object' || env === null || !('incoming' in env)) return undefined;
  const incoming = env.incoming;
  if (typeof incoming !== 'object' || incoming === null || !('socket' in incoming)) return undefined;
  const socket = incoming.socket;
  if (typeof socket !== 'object' || socket === null || !('remoteAddress' in socket)) return undefined;
  return typeof socket.remoteAddress === 'string' ? socket.remoteAddress : undefined;
}
