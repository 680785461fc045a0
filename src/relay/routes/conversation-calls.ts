// What every conversation route shares: its options, the handle's claims as the read policy admits them, upstream work
// under the relay's deadline, and how the service's refusal of a send or an escalation becomes an answer the visitor
// understands. Each route first asks the policy what it can answer without the service (an expired or retired handle),
// then reads its request, so that bad input costs the service nothing, and only then the rest (a write's status).
import type { Context } from 'hono';
import { z } from 'zod';
import type { CreatedConversation } from '../../shared/wire.ts';
import type { ConfigurationService } from '../configuration/configuration-service.ts';
import { AttemptStillSettling, SendOutcomeUnknown } from '../conversations/deliver-once.ts';
import type { HandleClaims, HandleSealer } from '../conversations/handles.ts';
import type { IdempotencyStore } from '../conversations/idempotency.ts';
import type { ReadPolicy, ReadSubject } from '../conversations/read-policy.ts';
import type { RevocationStore } from '../conversations/revocations.ts';
import type { SentRecord } from '../conversations/sent-record.ts';
import type { StatusReadings } from '../conversations/status-readings.ts';
import type { UnknownOutcomeStore } from '../conversations/unknown-outcomes.ts';
import { ApiError, withReason } from '../http/api-error.ts';
import { withDeadline } from '../http/deadline.ts';
import type { RelayEnv } from '../http/env.ts';
import { apiErrorFromUpstream } from '../http/upstream-errors.ts';
import type { LiveHub } from '../live/live-hub.ts';
import type { Logger } from '../log.ts';
import { noMetrics, type RelayMetrics } from '../metrics/metrics.ts';
import type { RateLimiter } from '../protection/rate-limiter.ts';
import { UpstreamError, type UpstreamClient } from '../upstream/index.ts';
import { createHandleClaims } from './handle-claims.ts';

export interface ConversationRouteOptions {
  upstream: UpstreamClient;
  configurations: ConfigurationService;
  handles: HandleSealer;
  /** Keeps the sent message without its text (sent-record.ts). */
  idempotency: IdempotencyStore<SentRecord>;
  /** Keeps the created conversation's handle per Idempotency-Key (created-record.ts). */
  creations: IdempotencyStore<CreatedConversation>;
  /** Sends whose answer was lost, checked before a retry sends again. */
  unknownOutcomes: UnknownOutcomeStore;
  /** Which handles are live: issued at creation, retired by End chat. */
  revocations: RevocationStore;
  /** The last status read for each conversation, reused by polls that find nothing newer (status-readings.ts). */
  statusReadings: StatusReadings;
  /** New conversations per client address. */
  conversationLimiter: RateLimiter;
  /** Messages per conversation. */
  messageLimiter: RateLimiter;
  addressOf: (c: Context<RelayEnv>) => string;
  handleTtlMs: number;
  messageMaxLength: number;
  deadlineMs: number;
  /** The longest one upstream send may run before it is aborted (deliver-once.ts). */
  sendWindowMs: number;
  /** How long after a send began its outcome may still be unknown (SEND_SETTLE_MS, deliver-once.ts). */
  sendSettleMs: number;
  /** The one policy for every call on a conversation (read-policy.ts): each route goes through it. */
  readPolicy: ReadPolicy;
  now?: () => number;
  /** Replays and read-backs are counted here. */
  metrics?: RelayMetrics;
  /** The live streams and their watches (GET /v1/conversation/events). */
  live: LiveHub;
  /** Where an upstream conversation left empty is told (create-once.ts). */
  logger?: Pick<Logger, 'warn'>;
}

/** A handle's claims that the read policy admitted earlier in the same request (not expired, not retired). */
export type AdmittedClaims = HandleClaims & { readonly admitted: true };

/** Whether a request has waited on another request's send (or a dead instance's attempt) with its key. */
export class Waiting {
  waited = false;
  readonly onWait = () => {
    this.waited = true;
  };
}

/** `?after=`: the sequence a poll or a stream starts after. */
export const afterQuery = z.union([
  z.undefined(),
  z
    .string()
    .regex(/^\d{1,15}$/)
    .transform(Number),
]);

export function createConversationCalls(options: ConversationRouteOptions) {
  const { deadlineMs } = options;

  /** Upstream work under the relay's deadline, with upstream failures turned into API codes. */
  const upstreamCall = <T>(work: Promise<T>, waiting?: Waiting) =>
    withDeadline(deadlineMs, work).catch((error: unknown) => {
      const apiError = apiErrorFromUpstream(error);
      // The deadline came while this request waited on another one's send with its key, not on the upstream.
      throw apiError.reason === 'deadline' && waiting?.waited
        ? withReason(apiError, 'waiting_on_other_instance')
        : apiError;
    });

  /**
   * Upstream refuses a message or an escalation in a resolved conversation with a 400 (one resolved since the status
   * the policy let it through on); the visitor should hear "this chat has ended", not "the service is unavailable".
   * The relay asks the policy again, on the status read now, rather than reading error bodies, whose shape the
   * service does not document; the policy also retires the handle if the grace is over.
   */
  async function explainRefusal(error: unknown, subject: ReadSubject): Promise<ApiError> {
    // "Still sending": the panel retries a timeout, and Retry-After brings it back when a read-back can decide.
    if (error instanceof AttemptStillSettling)
      return withReason(
        new ApiError('upstream_timeout', Math.ceil(error.retryAfterMs / 1000)),
        'earlier_attempt_settling',
      );
    // The upstream failure as such, asking the panel to come back when a retry can decide (its read-back).
    if (error instanceof SendOutcomeUnknown) {
      const cause = apiErrorFromUpstream(error.cause);
      const retryAfterSeconds = Math.max(cause.retryAfterSeconds ?? 0, Math.ceil(error.retryAfterMs / 1000));
      const answer = new ApiError(cause.code, retryAfterSeconds);
      return cause.reason === undefined ? answer : withReason(answer, cause.reason);
    }
    const apiError = apiErrorFromUpstream(error);
    if (!(error instanceof UpstreamError && error.code === 'upstream_rejected')) return apiError;
    try {
      const refusal = await withDeadline(deadlineMs, options.readPolicy.admitWrite(subject, { statusAgeMs: 0 }));
      return refusal === null ? apiError : new ApiError(refusal);
    } catch {
      return apiError;
    }
  }

  const openedClaims = createHandleClaims(options.handles);

  /** The claims of a handle the policy admits (not expired, not retired), or its refusal, thrown. */
  async function admittedClaims(c: Context<RelayEnv>): Promise<AdmittedClaims> {
    const claims = openedClaims(c);
    const refusal = await options.readPolicy.admit(claims);
    if (refusal !== null) throw new ApiError(refusal);
    return { ...claims, admitted: true };
  }

  /**
   * Whether the policy lets this write go upstream: the conversation not resolved; its refusal thrown. The handle was
   * admitted at the request's start (admittedClaims), so the policy is asked only about the status, which may be a
   * recent reading, or `statusAgeMs` old at most (0: read now); reading it is upstream work like any other.
   */
  async function admitWrite(subject: AdmittedClaims, policyOptions: { statusAgeMs?: number } = {}) {
    const refusal = await upstreamCall(options.readPolicy.admitWrite(subject, { ...policyOptions, admitted: true }));
    if (refusal !== null) throw new ApiError(refusal);
  }

  /**
   * Counts one upstream write the patient makes in a conversation (a message, a language switch) against the
   * conversation's message quota; `rate_limited` thrown once it is spent. Asked after the body is read, so a malformed
   * request costs nothing, and before the policy's status check, so a flood costs the service nothing either.
   */
  async function chargeMessageQuota(subject: AdmittedClaims) {
    const decision = await options.messageLimiter.hit(subject.conversationId);
    if (!decision.allowed) throw new ApiError('rate_limited', decision.retryAfterSeconds);
  }

  return {
    upstreamCall,
    explainRefusal,
    /** For a read: a sealed, unexpired handle's claims; the read itself goes through the policy (`readPolicy.read`). */
    openedClaims,
    admittedClaims,
    admitWrite,
    chargeMessageQuota,
    metrics: options.metrics ?? noMetrics,
    now: options.now ?? Date.now,
  };
}

export type ConversationCalls = ReturnType<typeof createConversationCalls>;
