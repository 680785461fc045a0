// The relay: the only server a practice runs. Browsers talk to this app; it talks to the upstream service through
// the upstream client, which alone holds the credentials and the access token.
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
import type { DependencyCheck } from './health/readiness.ts';
import { createEventLoopDelaySampler } from './health/event-loop-delay.ts';
import { noMetrics, type RelayMetrics } from './metrics/metrics.ts';
import { countingRefusals } from './protection/counting-refusals.ts';
import { useRelayMiddleware } from './app-middleware.ts';
import { wireLiveReads } from './app-live.ts';
import { mountRelayRoutes } from './app-routes.ts';

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
  const sourceAddressOf = createSourceAddress(settings.trustProxy);
  const app = new Hono<RelayEnv>();
  useRelayMiddleware(app, { settings, logger, metrics, lifecycle, quota, addressOf, sourceAddressOf, now });
  const reads = wireLiveReads({ settings, upstream, stores, events, metrics, lifecycle, now });
  mountRelayRoutes(app, {
    settings,
    upstream,
    logger,
    distDir,
    publicDir,
    configurations,
    stores,
    events,
    reads,
    quota,
    addressOf,
    dependencies,
    dependencyTimeoutMs,
    eventLoopDelayMs,
    lifecycle,
    metrics,
    now,
  });

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
