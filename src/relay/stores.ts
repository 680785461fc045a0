// What relay instances must share to behave as one: idempotency records, live handles and quotas, and the bus that
// tells the instance holding a conversation's streams that it changed. In memory for a single instance (the embedded
// default); in Redis when REDIS_URL (or REDIS_SENTINELS) is set, so any instance behind a load balancer answers a
// retry, a quota or a retired handle the same way. Both kinds sit behind the same interfaces. Composed here, at the
// relay's root, because it picks one kind of every part: the parts themselves know only their own folder and the ones
// below it.
import type { Logger } from './log.ts';
import { noMetrics, type RelayMetrics } from './metrics/metrics.ts';
import type { RelaySettings } from './settings.ts';
import { createIdempotencyStore, type IdempotencyStore } from './conversations/idempotency.ts';
import { createRedisIdempotencyStore } from './conversations/redis-idempotency.ts';
import { createRecordSealer } from './conversations/record-seal.ts';
import { createRedisRevocationStore } from './conversations/redis-revocations.ts';
import { createMemoryRevocationStore, type RevocationStore } from './conversations/revocations.ts';
import { createRedisResolutionStore } from './conversations/redis-resolutions.ts';
import { createMemoryResolutionStore, type ResolutionStore } from './conversations/resolutions.ts';
import { createRedisUnknownOutcomeStore } from './conversations/redis-unknown-outcomes.ts';
import { createUnknownOutcomeStore, type UnknownOutcomeStore } from './conversations/unknown-outcomes.ts';
import { sentRecordSchema, type SentRecord } from './conversations/sent-record.ts';
import { CREATE_KEY_PREFIX, CREATED_RECORD_TTL_MS, createdRecordSchema } from './conversations/created-record.ts';
import type { CreatedConversation } from '../shared/wire.ts';
import { createRateLimiter, type RateLimiter } from './protection/rate-limiter.ts';
import { createRedisRateLimiter } from './protection/redis-rate-limiter.ts';
import { createRedisClient, redisAnswers, warnAtMostEveryMinute } from './shared-state/redis-client.ts';
import { warnAboutRedisOnce } from './shared-state/redis-fitness.ts';
import type { RedisTarget } from './shared-state/redis-target.ts';
import { createMemoryEventBus, type EventBus } from './live/event-bus.ts';
import { createMemoryEventIdStore, type EventIdStore } from './live/event-ids.ts';
import { createRedisEventBus, createRedisEventIdStore } from './live/redis-events.ts';
import { createChangeSealer } from './live/change-seal.ts';

export interface RelayStores {
  idempotency: IdempotencyStore<SentRecord>;
  /** Conversations created per Idempotency-Key, so a retried create gives the same handle. */
  creations: IdempotencyStore<CreatedConversation>;
  revocations: RevocationStore;
  /** When each conversation was first seen resolved: its resolved grace counts from then, on every instance. */
  resolutions: ResolutionStore;
  /** Sends whose upstream answer was lost, checked before a retry sends again. */
  unknownOutcomes: UnknownOutcomeStore;
  /** A quota named `name` (its Redis key prefix): `limit` hits per `windowMs` per key. */
  quota(name: string, limit: number, windowMs: number): RateLimiter;
  /** Upstream event ids already accepted (a replay wakes nothing). */
  eventIds: EventIdStore;
  /** Named checks for /readyz; empty for memory stores, which cannot fail. */
  readiness: Record<string, () => Promise<boolean>>;
  /**
   * Whether each answer is a network round trip (Redis). Only then does a conversation call start its handle's check
   * beside its address quota so that both share one (routes/handle-admission.ts): in memory there is no round trip to
   * share, and starting early would only add a middleware layer and a promise to every call.
   */
  roundTrips: boolean;
}

/**
 * The stores and, beside them, the event bus: it keeps nothing, it carries "this conversation changed" to the
 * instance holding its streams. `close` ends both and the connection they share.
 */
export interface SharedState {
  stores: RelayStores;
  events: EventBus;
  close(): Promise<void>;
}

export function createMemoryStores(now: () => number = Date.now): RelayStores {
  return {
    idempotency: createIdempotencyStore<SentRecord>({ now }),
    creations: createIdempotencyStore<CreatedConversation>({ now, ttlMs: CREATED_RECORD_TTL_MS }),
    revocations: createMemoryRevocationStore(now),
    resolutions: createMemoryResolutionStore(now),
    unknownOutcomes: createUnknownOutcomeStore({ now }),
    quota: (_name, limit, windowMs) => createRateLimiter({ limit, windowMs, now }),
    eventIds: createMemoryEventIdStore({ now }),
    readiness: {},
    roundTrips: false,
  };
}

export function createMemorySharedState(now: () => number = Date.now): SharedState {
  return { stores: createMemoryStores(now), events: createMemoryEventBus(), close: async () => {} };
}

/**
 * `duplicateWaitMs`: how long a duplicate send waits for the first's result (the relay's request deadline).
 * `recordSecret`: what the keys that seal idempotency records and the channel's changes are derived from (the relay
 * passes HANDLE_SECRET), so that reading Redis and guessing a scope is not enough to open one; the same on every
 * instance.
 */
export function createRedisSharedState(
  target: RedisTarget,
  logger: Logger,
  duplicateWaitMs?: number,
  metrics: RelayMetrics = noMetrics,
  recordSecret: Uint8Array = new Uint8Array(0),
): SharedState {
  const client = createRedisClient(target, logger, metrics);
  warnAboutRedisOnce(client, target, logger);
  const quotasFailOpen = warnAtMostEveryMinute(logger);
  const unavailable = () =>
    quotasFailOpen('Redis is unreachable: quotas are not enforced and retired handles not checked until it is back.');
  const waitMs = duplicateWaitMs === undefined ? {} : { waitMs: duplicateWaitMs };
  const events = createRedisEventBus(client, createChangeSealer(recordSecret));
  const stores: RelayStores = {
    idempotency: createRedisIdempotencyStore({
      client,
      resultSchema: sentRecordSchema,
      sealer: createRecordSealer(recordSecret, 'sent-record'),
      ...waitMs,
      onRecordLost: () => logger.warn('A message was sent but its idempotency record could not be written to Redis.'),
    }),
    creations: createRedisIdempotencyStore({
      client,
      resultSchema: createdRecordSchema,
      keyPrefix: CREATE_KEY_PREFIX,
      sealer: createRecordSealer(recordSecret, 'created-record'),
      ttlMs: CREATED_RECORD_TTL_MS,
      ...waitMs,
      onRecordLost: () =>
        logger.warn('A conversation was created but its idempotency record could not be written to Redis.'),
    }),
    revocations: createRedisRevocationStore(client, unavailable),
    resolutions: createRedisResolutionStore(client, unavailable),
    unknownOutcomes: createRedisUnknownOutcomeStore(client),
    quota: (name, limit, windowMs) =>
      createRedisRateLimiter({ client, name, limit, windowMs, onUnavailable: unavailable }),
    eventIds: createRedisEventIdStore(client),
    readiness: { redis: () => redisAnswers(client) },
    roundTrips: true,
  };
  return {
    stores,
    events,
    close: async () => {
      await events.close();
      await client.quit().catch(() => client.disconnect());
    },
  };
}

export function createSharedState(
  settings: Pick<RelaySettings, 'redis' | 'requestDeadlineMs' | 'handleSecret'>,
  logger: Logger,
  now: () => number = Date.now,
  metrics: RelayMetrics = noMetrics,
): SharedState {
  return settings.redis === null
    ? createMemorySharedState(now)
    : createRedisSharedState(settings.redis, logger, settings.requestDeadlineMs, metrics, settings.handleSecret);
}
