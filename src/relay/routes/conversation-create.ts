// POST /v1/conversations: a new conversation, and the sealed handle that is the browser's only hold on it.
import { Hono } from 'hono';
import { z } from 'zod';
import type { CreatedConversation } from '../../shared/wire.ts';
import { CreateUnconfirmed, createCreateOnce } from '../conversations/create-once.ts';
import { CREATE_KEY_RULE, CREATED_RECORD_TTL_MS, createScope, isCreateKey } from '../conversations/created-record.ts';
import { createReferenceLookUpCheck } from '../conversations/reference-lookup-check.ts';
import { ApiError, withReason } from '../http/api-error.ts';
import { clientIdSchema } from '../http/client-id.ts';
import type { RelayEnv } from '../http/env.ts';
import { readJson, requireJson } from '../http/json-body.ts';
import { patientLanguage } from '../http/patient-language.ts';
import { DEFAULT_RETRY_AFTER_SECONDS } from '../http/upstream-errors.ts';
import { type ConversationCalls, Waiting } from './conversation-calls.ts';
import type { ConversationDependencies } from './conversation-dependencies.ts';

// Strict: a field the frame never sends is a caller that is not the frame, or a mistake; either way it is refused
// rather than silently dropped.
const createBody = z.strictObject({ client_id: clientIdSchema, language: patientLanguage.optional() });

/**
 * How long a practice's verdict on look-ups by `client_reference` holds (reference-lookup-check.ts): the service's
 * behaviour changes only when it is redeployed.
 */
const LOOKUP_RECHECK_MS = 60 * 60 * 1000;

/**
 * A lost create that could not be confirmed: the service is, as far as this visitor can tell, unavailable, and the
 * answer says when a retry with the key can be decided. The cause in the request log says why.
 */
function unconfirmedAsRetry(error: unknown): never {
  if (!(error instanceof CreateUnconfirmed)) throw error;
  const retryAfterSeconds = error.retryAfterMs === undefined ? undefined : Math.ceil(error.retryAfterMs / 1000);
  throw withReason(
    new ApiError('upstream_unavailable', Math.max(1, retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS)),
    'lost_create_unconfirmed',
  );
}

export function creationRoutes(
  {
    upstream,
    configurations,
    handles,
    stores,
    limits,
    timing: { now },
    telemetry: { logger, metrics },
  }: Omit<ConversationDependencies, 'reads'>,
  { upstreamCall }: ConversationCalls,
) {
  const lookUpCheck = createReferenceLookUpCheck({
    upstream,
    now,
    recheckAfterMs: LOOKUP_RECHECK_MS,
    // Once per relay, with no practice named: what the operator acts on is the service, not a practice.
    onFirstUnusable: () =>
      logger.warn(
        'the upstream service ignores the client_reference filter or does not echo it: creates whose answer is lost are not looked up, and answer upstream_unavailable until their key can be decided',
      ),
  });
  metrics.lostCreateLookUpsOff(lookUpCheck.unusableCount);
  const createOnce = createCreateOnce({
    upstream,
    outcomes: stores.unknownOutcomes,
    lookUpCheck,
    now,
    findWindowMs: CREATED_RECORD_TTL_MS,
    onRecovered: metrics.createRecovered,
    onUnconfirmed: metrics.lostCreateUnconfirmed,
    onLeftEmpty: (count) => {
      metrics.emptyConversations(count);
      logger.warn(
        'upstream conversations left empty: a create whose answer was lost was stored more than once, and none is used',
        { count },
      );
    },
  });

  return new Hono<RelayEnv>().post('/conversations', requireJson(), async (c) => {
    // Optional for any caller, always sent by the panel: a retried create with the same key gives the same handle,
    // on any instance, and opens no second conversation upstream. Since the key hands out a handle, it must be
    // unguessable.
    const key = c.req.header('Idempotency-Key');
    if (key !== undefined && !isCreateKey(key))
      throw new ApiError('bad_request', undefined, `An Idempotency-Key header on a create must be ${CREATE_KEY_RULE}.`);
    const body = createBody.safeParse(await readJson(c));
    if (!body.success) throw new ApiError('bad_request', undefined, 'The body must be {"client_id": "..."}.');
    const { client_id: clientId, language } = body.data;
    c.set('clientId', clientId);
    // Records and look-ups answer only the requester that made them: the same key from another visitor is another
    // conversation.
    const requester = createScope(clientId, limits.addressOf(c));
    // Counted only when a conversation is really created: a retry that gets the first one's handle is free, and so
    // is a retry that looks for the conversation its lost first attempt made (create-once.ts).
    const beforeFirstCreate = async () => {
      const decision = await limits.conversationLimiter.hit(limits.addressOf(c));
      if (!decision.allowed) throw new ApiError('rate_limited', decision.retryAfterSeconds);
    };
    const create = async (): Promise<CreatedConversation> => {
      // No deadline in here: the caller's applies outside, and a create it gives up on still finishes and is kept.
      const { configuration, practice } = await configurations.get(clientId);
      if (!configuration.is_active) throw new ApiError('inactive');
      // A lost answer is found again rather than created twice (create-once.ts).
      const conversation = await createOnce({ practice, requester, key, language, beforeFirstCreate }).catch(
        unconfirmedAsRetry,
      );
      const expiresAt = now() + handles.ttlMs;
      await handles.revocations.issue(conversation.id, expiresAt);
      const handle = handles.sealer.seal({ clientId, conversationId: conversation.id, expiresAt });
      return { conversation: handle, expires_at: new Date(expiresAt).toISOString() };
    };
    if (key === undefined) return c.json(await upstreamCall(create()), 201);
    // The store holds the create itself, and the deadline applies outside it, as for a send (conversation-messages.ts).
    const waiting = new Waiting();
    const outcome = await upstreamCall(stores.creations.run(requester, key, clientId, create, waiting.onWait), waiting);
    if (outcome.kind === 'conflict') throw new ApiError('idempotency_conflict');
    if (outcome.replayed) {
      // A conversation ended since (End chat, the resolved grace) is never handed out again.
      const claims = handles.sealer.open(outcome.value.conversation);
      if (claims === null || (await handles.revocations.isRevoked(claims.conversationId))) {
        throw new ApiError(
          'idempotency_conflict',
          undefined,
          "This Idempotency-Key's conversation has ended; start a new one with a new key.",
        );
      }
      metrics.idempotentReplay('create');
    }
    return c.json(outcome.value, 201);
  });
}
