// What runs around the relay's routes: the request log, the headers every answer carries, and the guards in front of
// what can reach upstream (quotas per address, the service events' own flood guard, the body limit, own frame only).
import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { RelaySettings } from './settings.ts';
import type { Logger } from './log.ts';
import { ApiError, errorResponse } from './http/api-error.ts';
import { bodyLimit } from './http/body-limit.ts';
import type { RelayEnv } from './http/env.ts';
import { rateLimit } from './http/rate-limit.ts';
import { eventFloodGuard, REFUSED_EVENTS_PER_MINUTE } from './http/event-flood-guard.ts';
import { eventSignatureCheck } from './http/event-signature.ts';
import { presetHeader } from './http/preset-header.ts';
import { requestLog } from './http/request-log.ts';
import { sameOrigin } from './http/same-origin.ts';
import type { Lifecycle } from './health/lifecycle.ts';
import type { RelayMetrics } from './metrics/metrics.ts';
import type { RateLimiter } from './protection/rate-limiter.ts';
import { UPSTREAM_EVENTS_PATH } from './upstream/contract/index.ts';

export const MINUTE = 60_000;

/** A quota under its fixed name, counting its refusals (app.ts). */
export type NamedQuota = (name: string, limit: number, windowMs: number) => RateLimiter;

/** How a request is counted: under which quota, as which client. */
export interface RequestCounting {
  quota: NamedQuota;
  /** The visitor a request counts as (http/client-address.ts). */
  addressOf: (c: Context<RelayEnv>) => string;
  /** The client's whole address, never its network: what the events path counts (event-flood-guard.ts). */
  sourceAddressOf: (c: Context<RelayEnv>) => string;
}

export interface RelayMiddlewareOptions {
  settings: RelaySettings;
  /** What the request log writes to and counts in. */
  telemetry: { logger: Logger; metrics: RelayMetrics };
  lifecycle: Lifecycle;
  visitors: RequestCounting;
  /**
   * What a conversation call starts before its address quota answers, so that with Redis both share a round trip
   * (routes/handle-admission.ts); it decides nothing, the route awaits it after the quota. None with stores in memory,
   * where there is no round trip to share.
   */
  besideQuota?: MiddlewareHandler<RelayEnv>;
  now: () => number;
}

/**
 * Runs `middleware` only for requests that can carry a body: GET and HEAD have none to limit, and Hono's bodyLimit,
 * which a chunked body still goes through, would build a whole WHATWG Request for them (body-limit.ts).
 */
function bodiesOnly(middleware: MiddlewareHandler<RelayEnv>): MiddlewareHandler<RelayEnv> {
  return (c, next) => (c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : middleware(c, next));
}

export function useRelayMiddleware(
  app: Hono<RelayEnv>,
  {
    settings,
    telemetry: { logger, metrics },
    lifecycle,
    visitors: { quota, addressOf, sourceAddressOf },
    besideQuota,
    now,
  }: RelayMiddlewareOptions,
): void {
  app.use(requestLog({ logger, metrics }));
  // Headers every answer carries are set before the route runs (a route may still override them, e.g. the frame's
  // Referrer-Policy), and not through c.header: see preset-header.ts. Changing c.res after the route made it copies
  // the response into a full WHATWG Response on @hono/node-server, which cost the hot paths dearly.
  app.use(async function baseHeaders(c, next) {
    presetHeader(c, 'X-Content-Type-Options', 'nosniff');
    presetHeader(c, 'Referrer-Policy', 'strict-origin-when-cross-origin');
    await next();
    // Stopping: a keep-alive client (a browser between polls) closes this connection after this answer, so the drain
    // does not wait for it and its next request opens a connection to another instance. Set after the route, so that
    // a request already in flight when the stop began gets it too; the copy this costs happens only while stopping.
    if (lifecycle.draining()) c.res.headers.set('Connection', 'close');
  });

  // One quota per address for everything that can reach upstream: the API and the frame page (which loads a
  // configuration, so a flood of made-up client ids would otherwise become a flood of upstream requests).
  const perAddress = rateLimit({
    limiter: quota('requests-per-address', settings.requestsPerMinutePerIp, MINUTE),
    keyOf: addressOf,
  });
  app.use('/frame', perAddress);
  // The service's events come from its few addresses, as many as conversations change: a visitor's quota would refuse
  // them. Each is authenticated by its signature instead, at the cost of a bounded read and one HMAC, before any quota;
  // a signed event passes whatever else its address or network sent, and an address whose unsigned calls keep being
  // refused is cut off (event-flood-guard.ts).
  const eventsGuard = eventFloodGuard({
    isSigned: eventSignatureCheck(settings.upstreamEventsSecret, now),
    signedCalls: quota('upstream-events-per-address', settings.upstreamEventsPerMinutePerIp, MINUTE),
    refusals: quota('refused-upstream-events-per-address', REFUSED_EVENTS_PER_MINUTE, MINUTE),
    keyOf: sourceAddressOf,
    logger,
    now,
  });
  const perVisitorAddress: MiddlewareHandler<RelayEnv> = (c, next) =>
    c.req.path === UPSTREAM_EVENTS_PATH ? eventsGuard(c, next) : perAddress(c, next);
  // Registered before the quota, which it must run beside: Hono runs middleware in the order it was added.
  if (besideQuota !== undefined) app.use('/v1/conversation/*', besideQuota);
  app.use(
    '/v1/*',
    // Everything under /v1 is no-store, except what a route sets for itself on success (the logo, addressed by its
    // content hash); error answers set no-store again (errorResponse).
    function noStore(c, next) {
      presetHeader(c, 'Cache-Control', 'no-store');
      return next();
    },
    perVisitorAddress,
    bodiesOnly(
      bodyLimit({
        maxSize: settings.bodyLimitBytes,
        onError: (c) => errorResponse(c, new ApiError('payload_too_large')),
      }),
    ),
  );
  // Creating a conversation and every call on one: only from the relay's own frame. Hono's `/v1/conversation/*` also
  // matches `/v1/conversation` itself (DELETE), and not `/v1/conversations`. Nothing is served under
  // `/v1/conversations/` any more (handles left URLs): that prefix is a plain 404.
  const ownFrameOnly = sameOrigin({ publicOrigin: settings.publicOrigin });
  app.use('/v1/conversations', ownFrameOnly);
  app.use('/v1/conversation/*', ownFrameOnly);
}
