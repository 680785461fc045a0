import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { Logger } from '../log.ts';
import { noMetrics, type RelayMetrics } from '../metrics/metrics.ts';
import type { RelayEnv } from './env.ts';
import { presetHeader } from './preset-header.ts';

/**
 * One log line per request: request id, route pattern, client_id, status, latency. The route pattern is logged
 * instead of the path, so whatever a caller puts in a path (a handle pasted into an old-style URL) never reaches the
 * log; query strings never do either, nor any header (conversation handles travel in Authorization).
 *
 * @example
 * app.use(requestLog({ logger }))
 */
export function requestLog({
  logger,
  metrics = noMetrics,
  now = () => performance.now(),
}: {
  logger: Logger;
  /** Counted with the same route pattern the line carries. */
  metrics?: RelayMetrics;
  now?: () => number;
}): MiddlewareHandler<RelayEnv> {
  return async function requestLog(c, next) {
    const startedAt = now();
    const requestId = crypto.randomUUID();
    c.set('requestId', requestId);
    c.set('clientId', null);
    c.set('errorCode', undefined);
    c.set('errorCause', undefined);
    c.set('unlogged', undefined);
    // Before the route runs, so it is part of every answer, errors included (preset-header.ts).
    presetHeader(c, 'X-Request-Id', requestId);
    try {
      await next();
    } finally {
      const code = c.get('errorCode');
      const cause = c.get('errorCause');
      const route = routePath(c, -1);
      const elapsedMs = now() - startedAt;
      if (c.get('unlogged') !== true)
        logger.request({
          request_id: requestId,
          method: c.req.method,
          route,
          client_id: c.get('clientId'),
          status: c.res.status,
          latency_ms: Math.round(elapsedMs * 10) / 10,
          ...(code === undefined ? {} : { code }),
          ...(cause === undefined ? {} : { cause }),
        });
      metrics.request(c.req.method, route, c.res.status, elapsedMs / 1000);
      if (code === 'storage_unavailable') metrics.storageRefused();
      if (code === 'session_expired') metrics.sessionExpired();
    }
  };
}
