// The relay: the only server a practice runs. Browsers talk to this app; it talks to the upstream service through
// the upstream client, which alone holds the credentials and the access token.
import { Hono, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { RelaySettings } from './settings.ts';
import type { Logger } from './log.ts';
import type { FetchLike, UpstreamClient } from './upstream/index.ts';
import { ApiError, errorResponse } from './http/api-error.ts';
import { apiErrorFromStorage } from './http/storage-errors.ts';
import { StorageError } from './shared-state/storage-error.ts';
import { createClientAddress } from './http/client-address.ts';
import type { RelayEnv } from './http/env.ts';
import { rateLimit } from './http/rate-limit.ts';
import { eventFloodGuard, REFUSED_EVENTS_PER_MINUTE } from './http/event-flood-guard.ts';
import { presetHeader } from './http/preset-header.ts';
import { requestLog } from './http/request-log.ts';
import { sameOrigin } from './http/same-origin.ts';
import { createConfigurationService } from './configuration/configuration-service.ts';
import { createHandleSealer } from './conversations/handles.ts';
import { createStatusReadings } from './conversations/status-readings.ts';
import { createMemoryStores, type RelayStores } from './stores.ts';
import { createMemoryEventBus, type EventBus } from './live/event-bus.ts';
import { configurationRoutes } from './routes/configuration.ts';
import { conversationRoutes } from './routes/conversations.ts';
import { conversationLanguageRoutes } from './routes/conversation-language.ts';
import { createConversationReader } from './conversations/conversation-reader.ts';
import { createReadPolicy } from './conversations/read-policy.ts';
import { createLiveHub } from './live/live-hub.ts';
import { createReadScheduler } from './live/read-scheduler.ts';
import { frameRoutes } from './routes/frame.ts';
import { localeRoutes } from './routes/locales.ts';
import { logoRoutes } from './routes/logo.ts';
import { createLogoFetcher } from './logo/logo-fetcher.ts';
import { LOGO_ROUTE } from './logo/logo-url.ts';
import { pageRoutes } from './routes/pages.ts';
import { staticRoutes } from './routes/static-assets.ts';
import { readFramePage } from './frame/frame-page.ts';
import { createLifecycle, type Lifecycle } from './health/lifecycle.ts';
import { createReadiness, type DependencyCheck } from './health/readiness.ts';
import { createEventLoopDelaySampler } from './health/event-loop-delay.ts';
import { readinessRoutes } from './routes/readiness.ts';
import { noMetrics, type RelayMetrics } from './metrics/metrics.ts';
import { countingRefusals } from './protection/counting-refusals.ts';
import { upstreamEventRoutes } from './routes/upstream-events.ts';
import { UPSTREAM_EVENTS_PATH } from './upstream/contract.ts';

export interface RelayAppOptions {
  settings: RelaySettings;
  upstream: UpstreamClient;
  logger: Logger;
  /** Where `vite build` put the browser files (loader.js, frame.html, assets/, demo/). */
  distDir: string;
  publicDir: string;
  /** How the relay fetches signed logo URLs: a plain fetch, never the upstream client's (which adds the token). */
  fetchLogo?: FetchLike;
  /** Idempotency records, retired handles and quotas; in memory unless given (serve.ts picks Redis for REDIS_URL). */
  stores?: RelayStores;
  /** Carries "this conversation changed" between instances; in memory unless given, with the stores. */
  events?: EventBus;
  now?: () => number;
  /** Further dependencies /readyz reports by name (never a reason for 503), each cut off after `dependencyTimeoutMs`. */
  dependencies?: Record<string, DependencyCheck>;
  dependencyTimeoutMs?: number;
  /** The recent event-loop delay in ms, for /readyz; a sampler of this process's loop unless given (tests). */
  eventLoopDelayMs?: () => number;
  /** Whether the instance is stopping; the server (serve.ts) shares one with the app. */
  lifecycle?: Lifecycle;
  /** What is counted for the operator (METRICS_PORT); nothing unless given. */
  metrics?: RelayMetrics;
}

/** The stores' own checks (Redis answers a PING) as /readyz dependencies: "ok" or "unreachable". */
function storeChecks(checks: RelayStores['readiness']): Record<string, DependencyCheck> {
  return Object.fromEntries(
    Object.entries(checks).map(([name, answers]) => [name, async () => ((await answers()) ? 'ok' : 'unreachable')]),
  );
}

/**
 * The longest one message send may run upstream: a token request and the send, each under the upstream timeout. A
 * send still running then is aborted, so a retry that finds its instance gone knows when it is over (deliver-once.ts).
 */
const sendWindowMs = (upstreamTimeoutMs: number) => 2 * upstreamTimeoutMs;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * Runs `middleware` only for requests that can carry a body. Hono's bodyLimit looks at `c.req.raw.body`, and on
 * @hono/node-server that builds a whole WHATWG Request (headers, stream, AbortSignal) even for a GET: under load the
 * message polls spent more time on that than on their upstream calls. GET and HEAD have no body to limit.
 */
function bodiesOnly(middleware: MiddlewareHandler<RelayEnv>): MiddlewareHandler<RelayEnv> {
  return (c, next) => (c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : middleware(c, next));
}

/** Remembers the first non-null answer: the built frame page does not change while the relay runs. */
function cacheOnceFound<T>(read: () => Promise<T | null>): () => Promise<T | null> {
  let found: T | null = null;
  return async () => (found ??= await read());
}

export function createRelayApp({
  settings,
  upstream,
  logger,
  distDir,
  publicDir,
  fetchLogo,
  now = Date.now,
  stores = createMemoryStores(now),
  events = createMemoryEventBus(),
  dependencies = {},
  dependencyTimeoutMs,
  eventLoopDelayMs = createEventLoopDelaySampler(),
  lifecycle = createLifecycle(),
  metrics = noMetrics,
}: RelayAppOptions) {
  // Every quota counts its refusals under its own fixed name.
  const quota = (name: string, limit: number, windowMs: number) =>
    countingRefusals(stores.quota(name, limit, windowMs), name, metrics);
  const configurations = createConfigurationService({
    upstream,
    fetchLogo: createLogoFetcher(fetchLogo ? { fetch: fetchLogo } : {}),
    cacheMs: settings.configCacheSeconds * 1000,
    allowLoopbackHttp: settings.development,
    now,
    onLookup: metrics.configurationCache,
  });
  const addressOf = createClientAddress(settings.trustProxy, settings.quotaIpv6Prefix);
  const deadlineMs = settings.requestDeadlineMs;

  const app = new Hono<RelayEnv>();
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

  app.get('/healthz', (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json({ status: 'ok' });
  });
  app.route(
    '/readyz',
    readinessRoutes({
      lifecycle,
      report: createReadiness({
        tokenState: () => upstream.tokenState(),
        dependencies: { ...storeChecks(stores.readiness), ...dependencies },
        ...(dependencyTimeoutMs === undefined ? {} : { timeoutMs: dependencyTimeoutMs }),
        eventLoopDelayMs,
        maxEventLoopDelayMs: settings.maxEventLoopDelayMs,
      }),
    }),
  );

  // One quota per address for everything that can reach upstream: the API and the frame page (which loads a
  // configuration, so a flood of made-up client ids would otherwise become a flood of upstream requests).
  const perAddress = rateLimit({
    limiter: quota('requests-per-address', settings.requestsPerMinutePerIp, MINUTE),
    keyOf: addressOf,
  });
  app.use('/frame', perAddress);
  // The service's events come from its few addresses, as many as conversations change: a visitor's quota would refuse
  // them. Each is authenticated by its signature instead, at the cost of one HMAC over at most 4 KB, and the path has
  // quotas of its own, which cut off an address whose calls keep being refused (event-flood-guard.ts).
  const eventsGuard = eventFloodGuard({
    calls: quota('upstream-events-per-address', settings.upstreamEventsPerMinutePerIp, MINUTE),
    refusals: quota('refused-upstream-events-per-address', REFUSED_EVENTS_PER_MINUTE, MINUTE),
    keyOf: addressOf,
    logger,
    now,
  });
  const perVisitorAddress: MiddlewareHandler<RelayEnv> = (c, next) =>
    c.req.path === UPSTREAM_EVENTS_PATH ? eventsGuard(c, next) : perAddress(c, next);
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

  app.route(
    '/v1/webchat-configuration',
    configurationRoutes({ configurations, deadlineMs, publicOrigin: settings.publicOrigin }),
  );
  app.route(LOGO_ROUTE, logoRoutes({ configurations, deadlineMs }));
  app.route('/v1/locales', localeRoutes());
  const statusReadings = createStatusReadings({ maxAgeMs: settings.statusRefreshSeconds * 1000, now });
  // The one policy every read of a conversation's content goes through, the poll's and the stream's alike.
  const readPolicy = createReadPolicy({
    read: createConversationReader(upstream, statusReadings),
    revocations: stores.revocations,
    now,
  });
  const live = createLiveHub({
    policy: readPolicy,
    scheduler: createReadScheduler(settings.upstreamReadConcurrency),
    lifetimeMs: settings.streamLifetimeMs,
    maxStreams: settings.maxStreams,
    // A handful of tabs; more is a script, and it polls instead.
    maxStreamsPerConversation: 5,
    maxUnsentBytes: settings.streamMaxUnsentBytes,
    now,
  });
  metrics.liveState(() => ({
    streams: live.streams,
    watches: live.watches,
    draining: lifecycle.draining(),
    eventsLinked: events.linked(),
  }));
  // A deploy never waits on a stream: each ends at once with a hint to reconnect (to another instance).
  lifecycle.onDrain(() => live.closeAll('shutdown'));
  // A service event reaches every instance (through Redis with REDIS_URL); the one watching the conversation reads it,
  // status included: the event may be a status change, which the reading kept here would hide.
  events.subscribe((conversationId) => {
    statusReadings.forget(conversationId);
    live.serviceEvent(conversationId);
  });
  if (settings.upstreamEventsSecret !== null) {
    app.route(
      UPSTREAM_EVENTS_PATH,
      upstreamEventRoutes({
        secret: settings.upstreamEventsSecret,
        eventIds: stores.eventIds,
        events,
        now,
        onEvent: metrics.upstreamEvent,
      }),
    );
  }
  const handles = createHandleSealer(settings.handleSecret, now);
  const messageLimiter = quota('messages-per-conversation', settings.messagesPerMinutePerConversation, MINUTE);
  app.route(
    '/v1',
    conversationRoutes({
      upstream,
      configurations,
      handles,
      idempotency: stores.idempotency,
      creations: stores.creations,
      revocations: stores.revocations,
      statusReadings,
      readPolicy,
      live,
      unknownOutcomes: stores.unknownOutcomes,
      conversationLimiter: quota('conversations-per-address', settings.conversationsPerHourPerIp, HOUR),
      messageLimiter,
      addressOf,
      handleTtlMs: settings.handleTtlMs,
      messageMaxLength: settings.messageMaxLength,
      deadlineMs,
      sendWindowMs: sendWindowMs(settings.upstreamTimeoutMs),
      sendSettleMs: settings.sendSettleMs,
      logger,
      now,
      metrics,
    }),
  );
  app.route(
    '/v1',
    conversationLanguageRoutes({ upstream, handles, revocations: stores.revocations, messageLimiter, deadlineMs }),
  );
  app.route(
    '/frame',
    frameRoutes({
      configurations,
      deadlineMs,
      readFramePage: cacheOnceFound(() => readFramePage(distDir)),
      publicOrigin: settings.publicOrigin,
      previewAllowed: settings.demoPages,
    }),
  );
  app.route('/', staticRoutes({ distDir, publicDir, demoPages: settings.demoPages }));
  if (settings.demoPages) app.route('/', pageRoutes());

  app.notFound((c) =>
    c.req.path.startsWith('/v1/') ? errorResponse(c, new ApiError('not_found')) : c.text('Not found.', 404),
  );
  app.onError((error, c) => {
    if (error instanceof ApiError) return errorResponse(c, error);
    // A store that could not be used: said as storage's failure, in the answer, the log's cause and the metrics.
    if (error instanceof StorageError) return errorResponse(c, apiErrorFromStorage(error));
    // Only the error's class name: its message could quote request data.
    logger.warn(`unexpected ${error.name} while answering ${c.req.method} request ${c.get('requestId')}`);
    return errorResponse(c, new ApiError('internal'));
  });
  return app;
}
