// The relay: the only server a practice runs. Browsers talk to this app; it talks to the upstream service through
// the upstream client, which alone holds the credentials and the access token. Read top to bottom: the parts every
// route shares, the middleware around them, the live reads, then each group of routes mounted where it answers, each
// built from the few things it needs.
import { Hono } from 'hono';
import type { RelaySettings } from './settings.ts';
import type { Logger } from './log.ts';
import type { FetchLike, UpstreamClient } from './upstream/index.ts';
import { ApiError, errorResponse } from './http/api-error.ts';
import { apiErrorFromStorage } from './http/storage-errors.ts';
import { StorageError } from './shared-state/storage-error.ts';
import { createClientAddress, createSourceAddress } from './http/client-address.ts';
import type { RelayEnv } from './http/env.ts';
import { createConfigurationService } from './configuration/configuration-service.ts';
import { ConfigurationError } from './configuration/configuration-error.ts';
import { apiErrorFromConfiguration } from './routes/configuration-errors.ts';
import { createMemoryStores, type RelayStores } from './stores.ts';
import { createMemoryEventBus, type EventBus } from './live/event-bus.ts';
import { createLogoFetcher } from './logo/logo-fetcher.ts';
import { createLifecycle, type Lifecycle } from './health/lifecycle.ts';
import { createEventLoopDelaySampler } from './health/event-loop-delay.ts';
import { noMetrics, type RelayMetrics } from './metrics/metrics.ts';
import { countingRefusals } from './protection/counting-refusals.ts';
import { createHandleSealer } from './conversations/handles.ts';
import { createReadiness, type DependencyCheck } from './health/readiness.ts';
import { readFramePage } from './frame/frame-page.ts';
import { LOGO_ROUTE } from './logo/logo-url.ts';
import { UPSTREAM_EVENTS_PATH } from './upstream/contract/index.ts';
import { configurationRoutes } from './routes/configuration.ts';
import { conversationRoutes } from './routes/conversations.ts';
import { frameRoutes } from './routes/frame.ts';
import { localeRoutes } from './routes/locales.ts';
import { logoRoutes } from './routes/logo.ts';
import { pageRoutes } from './routes/pages.ts';
import { readinessRoutes } from './routes/readiness.ts';
import { staticRoutes } from './routes/static-assets.ts';
import { upstreamEventRoutes } from './routes/upstream-events.ts';
import { MINUTE, useRelayMiddleware } from './app-middleware.ts';
import { wireLiveReads } from './app-live.ts';
import { createHandleClaims } from './routes/handle-claims.ts';
import { startHandleAdmission } from './routes/handle-admission.ts';

/**
 * What the relay is built from, in a few named groups: its settings, the upstream service, its files, what the
 * operator sees, and (defaulted) what instances share and the clock and stop it runs by.
 */
export interface RelayAppOptions {
  settings: RelaySettings;
  upstream: RelayUpstream;
  files: RelayFiles;
  observability: RelayObservability;
  /** In memory unless given (serve.ts gives Redis's for REDIS_URL). */
  shared?: RelaySharedState;
  /** Date.now and a lifecycle of its own unless given. */
  runtime?: RelayRuntime;
}

/** The service the relay stands in front of. */
export interface RelayUpstream {
  /** The only holder of the credentials and the access token. */
  client: UpstreamClient;
  /** How the relay fetches signed logo URLs: a plain fetch, never the client's (which adds the token). */
  fetchLogo?: FetchLike;
}

export interface RelayFiles {
  /** Where `vite build` put the browser files (loader.js, frame.html, assets/, demo/). */
  distDir: string;
  /** Files served as they are (public/). */
  publicDir: string;
}

/** What the operator sees: the log, the metrics and what /readyz reports. */
export interface RelayObservability {
  logger: Logger;
  /** What is counted for the operator (METRICS_PORT); nothing unless given. */
  metrics?: RelayMetrics;
  /** The recent event-loop delay in ms, for /readyz; a sampler of this process's loop unless given (tests). */
  eventLoopDelayMs?: () => number;
  /** Further dependencies /readyz reports by name (never a reason for 503), each cut off after `dependencyTimeoutMs`. */
  dependencies?: Record<string, DependencyCheck>;
  dependencyTimeoutMs?: number;
}

/** What every instance of the relay shares. */
export interface RelaySharedState {
  /** Idempotency records, retired handles and quotas. */
  stores: RelayStores;
  /** Carries "this conversation changed" between instances; in memory unless given. */
  events?: EventBus;
}

export interface RelayRuntime {
  now?: () => number;
  /** Whether the instance is stopping; the server (serve.ts) shares one with the app. */
  lifecycle?: Lifecycle;
}

const HOUR = 60 * MINUTE;

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

/** Remembers the first non-null answer: the built frame page does not change while the relay runs. */
function cacheOnceFound<T>(read: () => Promise<T | null>): () => Promise<T | null> {
  let found: T | null = null;
  return async () => (found ??= await read());
}

export function createRelayApp({
  settings,
  upstream: { client: upstream, fetchLogo },
  files: { distDir, publicDir },
  observability: {
    logger,
    metrics = noMetrics,
    eventLoopDelayMs = createEventLoopDelaySampler(),
    dependencies = {},
    dependencyTimeoutMs,
  },
  shared,
  runtime: { now = Date.now, lifecycle = createLifecycle() } = {},
}: RelayAppOptions) {
  const stores = shared?.stores ?? createMemoryStores(now);
  const events = shared?.events ?? createMemoryEventBus();
  const telemetry = { logger, metrics };
  // Every quota counts its refusals under its own fixed name.
  const quota = (name: string, limit: number, windowMs: number) =>
    countingRefusals(stores.quota(name, limit, windowMs), name, metrics);
  const visitors = {
    quota,
    addressOf: createClientAddress(settings.trustProxy, settings.quotaIpv6Prefix),
    sourceAddressOf: createSourceAddress(settings.trustProxy),
  };
  const configurations = createConfigurationService({
    upstream,
    fetchLogo: createLogoFetcher(fetchLogo ? { fetch: fetchLogo } : {}),
    cacheMs: settings.configCacheSeconds * 1000,
    allowLoopbackHttp: settings.development,
    now,
    onLookup: metrics.configurationCache,
  });
  const deadlineMs = settings.requestDeadlineMs;

  const app = new Hono<RelayEnv>();
  const reads = wireLiveReads({ settings, upstream, shared: { stores, events }, lifecycle, metrics, now });
  const handleSealer = createHandleSealer(settings.handleSecret, now);
  useRelayMiddleware(app, {
    settings,
    telemetry,
    lifecycle,
    visitors,
    besideQuota: stores.roundTrips
      ? startHandleAdmission({ open: createHandleClaims(handleSealer), readPolicy: reads.readPolicy })
      : undefined,
    now,
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
  app.route(
    '/v1/webchat-configuration',
    configurationRoutes({ configurations, deadlineMs, publicOrigin: settings.publicOrigin }),
  );
  app.route(LOGO_ROUTE, logoRoutes({ configurations, deadlineMs }));
  app.route('/v1/locales', localeRoutes());
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
  app.route(
    '/v1',
    conversationRoutes({
      upstream,
      configurations,
      handles: {
        sealer: handleSealer,
        revocations: stores.revocations,
        ttlMs: settings.handleTtlMs,
      },
      stores,
      reads,
      limits: {
        addressOf: visitors.addressOf,
        conversationLimiter: quota('conversations-per-address', settings.conversationsPerHourPerIp, HOUR),
        messageLimiter: quota('messages-per-conversation', settings.messagesPerMinutePerConversation, MINUTE),
        messageMaxLength: settings.messageMaxLength,
      },
      timing: {
        deadlineMs,
        sendWindowMs: sendWindowMs(settings.upstreamTimeoutMs),
        sendSettleMs: settings.sendSettleMs,
        now,
      },
      telemetry,
    }),
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
    if (error instanceof ConfigurationError) return errorResponse(c, apiErrorFromConfiguration(error));
    // Only the error's class name: its message could quote request data.
    logger.warn(`unexpected ${error.name} while answering ${c.req.method} request ${c.get('requestId')}`);
    return errorResponse(c, new ApiError('internal'));
  });
  return app;
}
