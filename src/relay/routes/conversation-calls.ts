// What every conversation route shares: the handle's claims as the read policy admits them, upstream work
// under the relay's deadline, and how the service's refusal of a send or an escalation becomes an answer the visitor
// understands. Each route first asks the policy what it can answer without the service (an expired or retired handle),
// then reads its request, so that bad input costs the service nothing, and only then the rest (a write's status).
import type { Context } from 'hono';
import { z } from 'zod';
import { AttemptStillSettling, SendOutcomeUnknown } from '../conversations/deliver-once.ts';
import type { HandleClaims } from '../conversations/handles.ts';
import type { ReadSubject } from '../conversations/read-policy.ts';
import { ApiError, withReason } from '../http/api-error.ts';
import { withDeadline } from '../http/deadline.ts';
import type { RelayEnv } from '../http/env.ts';
import { apiErrorFromUpstream } from '../http/upstream-errors.ts';
import { UpstreamError } from '../upstream/index.ts';
import type { ConversationDependencies } from './conversation-dependencies.ts';
import { createHandleClaims } from './handle-claims.ts';
import type { EarlyAdmission } from './handle-admission.ts';

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

export function createConversationCalls({
  handles,
  reads: { readPolicy },
  limits: { messageLimiter },
  timing: { deadlineMs },
}: Pick<ConversationDependencies, 'handles' | 'reads' | 'limits' | 'timing'>) {
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
      const refusal = await withDeadline(deadlineMs, readPolicy.admitWrite(subject, { statusAgeMs: 0 }));
      return refusal === null ? apiError : new ApiError(refusal);
    } catch {
      return apiError;
    }
  }

  const openClaims = createHandleClaims(handles.sealer);

  /** The handle's claims: opened as the request arrived (handle-admission.ts), or now. */
  const openedClaims = (c: Context<RelayEnv>): HandleClaims => c.get('admission')?.claims ?? openClaims(c);

  /**
   * Opened claims the policy admits (not expired, not retired), or its refusal, thrown. The policy's answer started
   * as the request arrived (handle-admission.ts) is the one awaited; the policy is asked now only without it.
   */
  async function admit(c: Context<RelayEnv>, claims: HandleClaims): Promise<AdmittedClaims> {
    const early: EarlyAdmission | undefined = c.get('admission');
    const refusal = await (early?.claims === claims ? early.refusal : readPolicy.admit(claims));
    if (refusal !== null) throw new ApiError(refusal);
    return { ...claims, admitted: true };
  }

  /** The claims of a handle the policy admits (not expired, not retired), or its refusal, thrown. */
  const admittedClaims = async (c: Context<RelayEnv>): Promise<AdmittedClaims> => admit(c, openedClaims(c));

  /**
   * Whether the policy lets this write go upstream: the conversation not resolved; its refusal thrown. The handle was
   * admitted at the request's start (admittedClaims), so the policy is asked only about the status, which may be a
   * recent reading, or `statusAgeMs` old at most (0: read now); reading it is upstream work like any other.
   */
  async function admitWrite(subject: AdmittedClaims, policyOptions: { statusAgeMs?: number } = {}) {
    const refusal = await upstreamCall(readPolicy.admitWrite(subject, { ...policyOptions, admitted: true }));
    if (refusal !== null) throw new ApiError(refusal);
  }

  /**
   * Counts one upstream write the patient makes in a conversation (a message, a language switch) against the
   * conversation's message quota; `rate_limited` thrown once it is spent. Asked after the body is read, so a malformed
   * request costs nothing, and before the policy's status check, so a flood costs the service nothing either.
   */
  async function chargeMessageQuota(subject: AdmittedClaims) {
    const decision = await messageLimiter.hit(subject.conversationId);
    if (!decision.allowed) throw new ApiError('rate_limited', decision.retryAfterSeconds);
  }

  return {
    upstreamCall,
    explainRefusal,
    /** A sealed, unexpired handle's claims, before the policy's answer (`admit`). */
    openedClaims,
    /** For a route that reads its request between opening the handle and asking the policy (the stream's `after`). */
    admit,
    admittedClaims,
    admitWrite,
    chargeMessageQuota,
  };
}

export type ConversationCalls = ReturnType<typeof createConversationCalls>;
