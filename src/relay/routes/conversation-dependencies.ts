// What the conversation routes are built from, in a few named groups rather than one flat list: the composition root
// hands each group over whole (its stores, its reads, its limits, its timing), and each route group takes the groups
// it uses.
import type { Context } from 'hono';
import type { CreatedConversation } from '../../shared/wire.ts';
import type { ConfigurationService } from '../configuration/configuration-service.ts';
import type { HandleSealer } from '../conversations/handles.ts';
import type { IdempotencyStore } from '../conversations/idempotency.ts';
import type { ReadPolicy } from '../conversations/read-policy.ts';
import type { RevocationStore } from '../conversations/revocations.ts';
import type { SentRecord } from '../conversations/sent-record.ts';
import type { StatusReadings } from '../conversations/status-readings.ts';
import type { UnknownOutcomeStore } from '../conversations/unknown-outcomes.ts';
import type { RelayEnv } from '../http/env.ts';
import type { LiveHub } from '../live/live-hub.ts';
import type { Logger } from '../log.ts';
import type { RelayMetrics } from '../metrics/metrics.ts';
import type { RateLimiter } from '../protection/rate-limiter.ts';
import type { UpstreamClient } from '../upstream/index.ts';

/** The browser's only hold on a conversation: sealed here, live until End chat retires it, for `ttlMs` at most. */
export interface ConversationHandles {
  sealer: HandleSealer;
  /** Which handles are live: issued at creation, retired by End chat. */
  revocations: RevocationStore;
  ttlMs: number;
}

/** What makes a create and a send happen once however often the panel retries them. */
export interface ConversationStores {
  /** Keeps the sent message without its text (sent-record.ts). */
  idempotency: IdempotencyStore<SentRecord>;
  /** Keeps the created conversation's handle per Idempotency-Key (created-record.ts). */
  creations: IdempotencyStore<CreatedConversation>;
  /** Sends and creates whose answer was lost, checked before a retry sends again. */
  unknownOutcomes: UnknownOutcomeStore;
}

/** How a conversation is read and followed: the one policy every call goes through, and what it reads with. */
export interface ConversationReads {
  /** The one policy for every call on a conversation (read-policy.ts): each route goes through it. */
  readPolicy: ReadPolicy;
  /** The last status read for each conversation, reused by polls that find nothing newer (status-readings.ts). */
  statusReadings: StatusReadings;
  /** The live streams and their watches (GET /v1/conversation/events). */
  live: LiveHub;
}

/** How much one visitor may ask for. */
export interface ConversationLimits {
  /** The visitor a request counts as (http/client-address.ts): the conversation quota's key and a create's scope. */
  addressOf: (c: Context<RelayEnv>) => string;
  /** New conversations per client address. */
  conversationLimiter: RateLimiter;
  /** Upstream writes (messages, language switches) per conversation. */
  messageLimiter: RateLimiter;
  messageMaxLength: number;
}

/** How long the relay waits, and on which clock. */
export interface ConversationTiming {
  /** The longest a request waits on upstream work before it answers (http/deadline.ts). */
  deadlineMs: number;
  /** The longest one upstream send may run before it is aborted (deliver-once.ts). */
  sendWindowMs: number;
  /** How long after a send began its outcome may still be unknown (SEND_SETTLE_MS, deliver-once.ts). */
  sendSettleMs: number;
  now: () => number;
}

/** What the operator is told: counters (replays, read-backs, lost creates) and the rare warning. */
export interface ConversationTelemetry {
  logger: Pick<Logger, 'warn'>;
  metrics: RelayMetrics;
}

export interface ConversationDependencies {
  upstream: UpstreamClient;
  configurations: ConfigurationService;
  handles: ConversationHandles;
  stores: ConversationStores;
  reads: ConversationReads;
  limits: ConversationLimits;
  timing: ConversationTiming;
  telemetry: ConversationTelemetry;
}
