import type { MiddlewareHandler } from 'hono';
import { isIPv4 } from 'node:net';
import { apiError } from '../errors.ts';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The staff page and its API carry no credential (they stand for the practice's own tools), so they answer only a
 * browser on this machine. The caller's socket address must be a loopback one: the Host header is the caller's to
 * write, so a simulator listening on another interface would otherwise serve anyone who sends `Host: localhost`. The
 * Host must also be a loopback name, which defeats DNS rebinding (a page elsewhere whose name now points here), and an
 * Origin, when sent, the simulator's own, so no page elsewhere can post replies or resolve conversations.
 *
 * @example
 * app.use('/staff/*', loopbackOnly())
 */
export function loopbackOnly(): MiddlewareHandler {
  return async function loopbackOnly(c, next) {
    const peer = socketAddress(c.env);
    // No socket at all: called in-process (app.request), from this machine by definition.
    if (peer !== 'in-process' && (peer === null || !isLoopbackAddress(peer))) {
      return apiError(c, 403, 'forbidden_address', 'The staff page answers only callers on this machine.');
    }
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

/** 127.0.0.0/8 and ::1, and an IPv4 loopback address as a dual-stack socket reports it (::ffff:127.0.0.1). */
export function isLoopbackAddress(address: string): boolean {
  const ipv4 = /^::ffff:(.+)$/i.exec(address)?.[1] ?? address;
  if (isIPv4(ipv4)) return ipv4.startsWith('127.');
  // Node reports IPv6 peers in their canonical spelling.
  return address === '::1';
}

/**
 * The caller's address: @hono/node-server puts Node's request on `env.incoming`; under app.request() there is none
 * (`in-process`). null: a socket whose address is unknown (already closed), which is not trusted.
 */
function socketAddress(env: unknown): string | null | 'in-process' {
  if (typeof env !== 'object' || env === null || !('incoming' in env)) return 'in-process';
  const incoming = env.incoming as { socket?: { remoteAddress?: unknown } } | undefined;
  const address = incoming?.socket?.remoteAddress;
  return typeof address === 'string' ? address : null;
}
