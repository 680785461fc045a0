// Where each route is mounted and what it is given: health, the /v1 API, the service's events, the frame and the
// pages, with the parts only routes use (the handle sealer, the readiness report, the conversation and message quotas).
import type { Context, Hono } from 'hono';
import type { RelaySettings } from './settings.ts';
import type { Logger } from './log.ts';
import type { UpstreamClient } from './upstream/index.ts';
import type { RelayEnv } from './http/env.ts';
import type { ConfigurationService } from './configuration/configuration-service.ts';
import { createHandleSealer } from './conversations/handles.ts';
import type { RelayStores } from './stores.ts';
import type { EventBus } from './live/event-bus.ts';
import { configurationRoutes } from './routes/configuration.ts';
import { conversationRoutes } from './routes/conversations.ts';
import { frameRoutes } from './routes/frame.ts';
import { localeRoutes } from './routes/locales.ts';
import { logoRoutes } from './routes/logo.ts';
import { LOGO_ROUTE } from './logo/logo-url.ts';
import { pageRoutes } from './routes/pages.ts';
import { staticRoutes } from './routes/static-assets.ts';
import { readFramePage } from './frame/frame-page.ts';
import type { Lifecycle } from './health/lifecycle.ts';
import { createReadiness, type DependencyCheck } from './health/readiness.ts';
import { readinessRoutes } from './routes/readiness.ts';
import type { RelayMetrics } from './metrics/metrics.ts';
import { upstreamEventRoutes } from './routes/upstream-events.ts';
import { UPSTREAM_EVENTS_PATH } from './upstream/contract/index.ts';
import { MINUTE, type NamedQuota } from './app-middleware.ts';
import type { LiveReads } from './app-live.ts';

const HOUR = 60 * MINUTE;

export interface RelayRoutesOptions {
  settings: RelaySettings;
  upstream: UpstreamClient;
  logger: Logger;
  distDir: string;
  publicDir: string;
  configurations: ConfigurationService;
  stores: RelayStores;
  events: EventBus;
  reads: LiveReads;
  quota: NamedQuota;
  addressOf: (c: Context<RelayEnv>) => string;
  dependencies: Record<string, DependencyCheck>;
  dependencyTimeoutMs: number | undefined;
  eventLoopDelayMs: () => number;
  lifecycle: Lifecycle;
  metrics: RelayMetrics;
  now: () => number;
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

/** Remembers the first non-null answer: the built frame page does not change while the relay runs. */
function cacheOnceFound<T>(read: () => Promise<T | null>): () => Promise<T | null> {
  let found: T | null = null;
  return async () => (found ??= await read());
}

export function mountRelayRoutes(
  app: Hono<RelayEnv>,
  {
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
  }: RelayRoutesOptions,
): void {
  const deadlineMs = settings.requestDeadlineMs;
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
        sealer: createHandleSealer(settings.handleSecret, now),
        revocations: stores.revocations,
        ttlMs: settings.handleTtlMs,
      },
      stores,
      reads,
      limits: {
        addressOf,
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
      telemetry: { logger, metrics },
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
}
