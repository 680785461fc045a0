// The conversation calls of the /v1 API. The browser holds only a sealed handle; the upstream conversation id, the
// practice and the token stay here. Message text passes through to upstream and back and is never logged.
// The handle travels in `Authorization: Bearer HANDLE` (bearer-handle.ts), never in a path or a query: proxies and
// load balancers write URLs into their access and error logs, and a handle reads a patient's conversation.
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { CreatedConversation, Escalated, MessagesAfter, SentMessage } from '../../shared/wire.ts';
import { ApiError, withReason } from '../http/api-error.ts';
import { withDeadline } from '../http/deadline.ts';
import type { RelayEnv } from '../http/env.ts';
import { readJson, requireJson } from '../http/json-body.ts';
import { apiErrorFromUpstream } from '../http/upstream-errors.ts';
import { createHandleClaims } from './handle-claims.ts';
import type { ConfigurationService } from '../configuration/configuration-service.ts';
import type { HandleSealer } from '../conversations/handles.ts';
import type { IdempotencyStore } from '../conversations/idempotency.ts';
import { CREATE_KEY_RULE, CREATED_RECORD_TTL_MS, createScope, isCreateKey } from '../conversations/created-record.ts';
import { withoutText, withText, type SentRecord } from '../conversations/sent-record.ts';
import { AttemptStillSettling, createDeliverOnce, SendOutcomeUnknown } from '../conversations/deliver-once.ts';
import { createCreateOnce } from '../conversations/create-once.ts';
import type { Logger } from '../log.ts';
import type { ReadPolicy } from '../conversations/read-policy.ts';
import { asOf, toWireMessage } from '../conversations/wire-message.ts';
import { noMetrics, type RelayMetrics } from '../metrics/metrics.ts';
import type { LiveHub } from '../live/live-hub.ts';
import { nodeSink, STREAM_HEADERS, webSink } from '../live/stream-sink.ts';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { ServerResponse } from 'node:http';
import type { UnknownOutcomeStore } from '../conversations/unknown-outcomes.ts';
import type { RevocationStore } from '../conversations/revocations.ts';
import type { StatusReadings } from '../conversations/status-readings.ts';
import type { RateLimiter } from '../protection/rate-limiter.ts';
import { UpstreamError, type UpstreamClient } from '../upstream/index.ts';
import { clientIdSchema } from '../http/client-id.ts';
import { patientLanguage } from '../http/patient-language.ts';

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
  /** The one policy for reading a conversation's content (read-policy.ts): the poll and the stream go through it. */
  readPolicy: ReadPolicy;
  now?: () => number;
  /** Replays and read-backs are counted here. */
  metrics?: RelayMetrics;
  /** The live streams and their watches (GET /v1/conversation/events). */
  live: LiveHub;
  /** Where an upstream conversation left empty is told (create-once.ts). */
  logger?: Pick<Logger, 'warn'>;
}

/** Whether a request has waited on another request's send (or a dead instance's attempt) with its key. */
class Waiting {
  waited = false;
  readonly onWait = () => {
    this.waited = true;
  };
}

/** Where the grace lives now (read-policy.ts); kept here for those who import it from the routes. */
export { RESOLVED_READ_GRACE_MS } from '../conversations/read-policy.ts';

const IDEMPOTENCY_KEY = /^[A-Za-z0-9_-]{8,128}$/;
const KEY_RULE = '8–128 letters, digits, - or _';
// Strict: a field the frame never sends is a caller that is not the frame, or a mistake; either way it is refused
// rather than silently dropped.
const createBody = z.strictObject({ client_id: clientIdSchema, language: patientLanguage.optional() });
const escalateBody = z.strictObject({});
const afterQuery = z.union([
  z.undefined(),
  z
    .string()
    .regex(/^\d{1,15}$/)
    .transform(Number),
]);

export function conversationRoutes(options: ConversationRouteOptions) {
  const {
    upstream,
    configurations,
    handles,
    idempotency,
    revocations,
    statusReadings,
    deadlineMs,
    now = Date.now,
  } = options;
  const metrics = options.metrics ?? noMetrics;
  const deliverOnce = createDeliverOnce({
    upstream,
    outcomes: options.unknownOutcomes,
    sendWindowMs: options.sendWindowMs,
    settleWindowMs: options.sendSettleMs,
    now,
    onReadBack: metrics.readBack,
  });
  const createOnce = createCreateOnce({
    upstream,
    outcomes: options.unknownOutcomes,
    now,
    findWindowMs: CREATED_RECORD_TTL_MS,
    onRecovered: metrics.createRecovered,
    onLeftEmpty: (count) => {
      metrics.emptyConversations(count);
      options.logger?.warn('upstream conversations left empty: a create whose answer was lost was made again', {
        count,
      });
    },
  });
  const messageBody = z.strictObject({
    text: z
      .string()
      .max(options.messageMaxLength)
      .refine((text) => text.trim() !== ''),
  });

  /** Upstream work under the relay's deadline, with upstream failures turned into API codes. */
  const upstreamCall = <T>(work: Promise<T>, waiting?: Waiting) =>
    withDeadline(deadlineMs, work).catch((error: unknown) => {
      const apiError = apiErrorFromUpstream(error);
      // The deadline came while this request waited on another one's send with its key, not on the upstream.
      throw apiError.reason === 'deadline' && waiting?.waited
        ? withReason(apiError, 'waiting_on_other_instance')
        : apiError;
    });

  const { live: claimsOf, opened: openedClaims } = createHandleClaims(handles, revocations);

  // Mounted at /v1: creating is `/conversations`; every call on a conversation is `/conversation/...`, its handle in
  // the Authorization header. The old `/conversations/HANDLE/...` paths are no route at all (404).
  return (
    new Hono<RelayEnv>()
      .post('/conversations', requireJson(), async (c) => {
        // Optional for any caller, always sent by the panel: a retried create with the same key gives the same handle,
        // on any instance, and opens no second conversation upstream. Since the key hands out a handle, it must be
        // unguessable.
        const key = c.req.header('Idempotency-Key');
        if (key !== undefined && !isCreateKey(key))
          throw new ApiError(
            'bad_request',
            undefined,
            `An Idempotency-Key header on a create must be ${CREATE_KEY_RULE}.`,
          );
        const body = createBody.safeParse(await readJson(c));
        if (!body.success) throw new ApiError('bad_request', undefined, 'The body must be {"client_id": "..."}.');
        const { client_id: clientId, language } = body.data;
        c.set('clientId', clientId);
        // Records and look-ups answer only the requester that made them: the same key from another visitor is another
        // conversation.
        const requester = createScope(clientId, options.addressOf(c));
        const create = async (): Promise<CreatedConversation> => {
          // Counted only when a conversation is really created: a retry that gets the first one's handle is free.
          const decision = await options.conversationLimiter.hit(options.addressOf(c));
          if (!decision.allowed) throw new ApiError('rate_limited', decision.retryAfterSeconds);
          // No deadline in here: the caller's applies outside, and a create it gives up on still finishes and is kept.
          const { configuration, practice } = await configurations.get(clientId);
          if (!configuration.is_active) throw new ApiError('inactive');
          // A lost answer is found again rather than created twice (create-once.ts).
          const conversation = await createOnce({ practice, requester, key, language });
          const expiresAt = now() + options.handleTtlMs;
          await revocations.issue(conversation.id, expiresAt);
          const handle = handles.seal({ clientId, conversationId: conversation.id, expiresAt });
          return { conversation: handle, expires_at: new Date(expiresAt).toISOString() };
        };
        if (key === undefined) return c.json(await upstreamCall(create()), 201);
        // The store holds the create itself, and the deadline applies outside it, as for a send (below).
        const waiting = new Waiting();
        const outcome = await upstreamCall(
          options.creations.run(requester, key, clientId, create, waiting.onWait),
          waiting,
        );
        if (outcome.kind === 'conflict') throw new ApiError('idempotency_conflict');
        if (outcome.replayed) {
          // A conversation ended since (End chat, the resolved grace) is never handed out again.
          const claims = handles.open(outcome.value.conversation);
          if (claims === null || (await revocations.isRevoked(claims.conversationId))) {
            throw new ApiError(
              'idempotency_conflict',
              undefined,
              "This Idempotency-Key's conversation has ended; start a new one with a new key.",
            );
          }
          metrics.idempotentReplay('create');
        }
        return c.json(outcome.value, 201);
      })

      .post('/conversation/messages', requireJson(), async (c) => {
        const claims = await claimsOf(c);
        const key = c.req.header('Idempotency-Key');
        if (key === undefined || !IDEMPOTENCY_KEY.test(key)) {
          throw new ApiError('bad_request', undefined, `An Idempotency-Key header (${KEY_RULE}) is required.`);
        }
        const body = messageBody.safeParse(await readJson(c));
        if (!body.success) {
          throw new ApiError(
            'bad_request',
            undefined,
            `The body must be {"text": "..."}, not blank, at most ${options.messageMaxLength} characters.`,
          );
        }
        const decision = await options.messageLimiter.hit(claims.conversationId);
        if (!decision.allowed) throw new ApiError('rate_limited', decision.retryAfterSeconds);
        const text = body.data.text;
        // The store holds the upstream send itself, and the deadline applies outside it: if the browser gives up
        // waiting, the send goes on and the key stays taken until it settles, so the retry cannot send it twice. A send
        // whose answer was lost is read back before the retry sends again (deliver-once.ts).
        const waiting = new Waiting();
        const outcome = await upstreamCall(
          idempotency.run(
            claims.conversationId,
            key,
            text,
            () =>
              deliverOnce(claims.conversationId, key, text).then(withoutText, async (error: unknown) => {
                throw await explainRefusal(error, claims.conversationId);
              }),
            waiting.onWait,
          ),
          waiting,
        );
        if (outcome.kind === 'conflict') throw new ApiError('idempotency_conflict');
        if (outcome.replayed) metrics.idempotentReplay('send');
        options.live.activity(claims.conversationId);
        const answer: SentMessage = { message: toWireMessage(withText(outcome.value, text)) };
        return c.json(answer, 201);
      })

      .get('/conversation/messages', async (c) => {
        // The handle's retirement is the read policy's to check, with the rest of its rules.
        const claims = openedClaims(c);
        const after = afterQuery.safeParse(c.req.query('after'));
        if (!after.success) throw new ApiError('bad_request', undefined, 'after must be a whole number.');
        const cursor = after.data ?? 0;
        const read = await upstreamCall(options.readPolicy.read(claims, cursor));
        if (read.refused !== null) throw new ApiError(read.refused);
        const { page, conversation } = read;
        const messages = page.messages.map(toWireMessage);
        const answer: MessagesAfter = {
          messages,
          cursor: messages.at(-1)?.sequence ?? cursor,
          status: conversation.status,
          status_as_of: asOf(conversation.updatedAt),
        };
        return c.json(answer);
      })

      // End chat: the handle is retired on the relay for the rest of its life (any instance, when the store is shared).
      // The conversation itself stays with the practice, open, as a visitor leaving a chat does not close the case.
      .delete('/conversation', async (c) => {
        const claims = await claimsOf(c);
        await revocations.revoke(claims.conversationId, claims.expiresAt);
        statusReadings.forget(claims.conversationId);
        // This instance's streams of the conversation (another tab's) end now, not at the watch's next read.
        options.live.wake(claims.conversationId);
        return c.body(null, 204);
      })

      .post('/conversation/escalate', requireJson(), async (c) => {
        const claims = await claimsOf(c);
        if (!escalateBody.safeParse(await readJson(c)).success)
          throw new ApiError('bad_request', undefined, 'The body must be {}.');
        const conversation = await upstreamCall(
          upstream.escalate(claims.conversationId).catch(async (error: unknown) => {
            throw await explainRefusal(error, claims.conversationId);
          }),
        );
        // The service's answer is the freshest reading there is: the polls that follow reuse it, not the one before.
        const updatedAt = Date.parse(conversation.updated_at);
        const newestSequence = statusReadings.recent(claims.conversationId)?.newestSequence ?? 0;
        statusReadings.remember(claims.conversationId, { status: conversation.status, updatedAt, newestSequence });
        const answer: Escalated = { status: conversation.status, status_as_of: asOf(updatedAt) };
        options.live.activity(claims.conversationId);
        return c.json(answer);
      })

      // The live stream (src/shared/wire.ts): refusals before the 200 answer as every call's do; after it, in the stream.
      .get('/conversation/events', async (c) => {
        const claims = openedClaims(c);
        const after = afterQuery.safeParse(c.req.query('after'));
        if (!after.success) throw new ApiError('bad_request', undefined, 'after must be a whole number.');
        // The policy's own answer before the 200; every read the stream makes after it asks the policy again.
        const refused = await options.readPolicy.admit(claims);
        if (refused !== null) throw new ApiError(refused);
        const refusal = options.live.refusal(claims.conversationId);
        // The panel falls back to polling on any answer but a stream.
        if (refusal === 'too_many_streams')
          throw new ApiError(
            'upstream_unavailable',
            30,
            'This instance holds as many live streams as it may; poll instead.',
          );
        if (refusal === 'too_many_for_conversation')
          throw new ApiError('rate_limited', 60, 'Too many live streams for this conversation; poll instead.');
        const subject = { conversationId: claims.conversationId, expiresAt: claims.expiresAt };
        const outgoing = serverResponseOf(c);
        if (outgoing !== null) {
          void options.live.open(subject, after.data ?? 0, nodeSink(outgoing, requestIdHeader(c)));
          return RESPONSE_ALREADY_SENT;
        }
        const { sink, body } = webSink();
        void options.live.open(subject, after.data ?? 0, sink);
        return new Response(body, { status: 200, headers: { ...STREAM_HEADERS, ...requestIdHeader(c) } });
      })
  );

  /**
   * Upstream refuses a message or an escalation in a resolved conversation with a 400; the visitor should hear "this chat has ended",
   * not "the service is unavailable". The relay asks for the conversation's status rather than reading error bodies,
   * whose shape the service does not document.
   */
  async function explainRefusal(error: unknown, conversationId: string): Promise<ApiError> {
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
      const conversation = await withDeadline(deadlineMs, upstream.getConversation(conversationId));
      return conversation.status === 'resolved' ? new ApiError('conversation_resolved') : apiError;
    } catch {
      return apiError;
    }
  }
}

/** Node's ServerResponse under @hono/node-server (`env.outgoing`); null under app.request(). */
function serverResponseOf(c: Context<RelayEnv>): ServerResponse | null {
  const env = c.env as { outgoing?: unknown } | undefined;
  return typeof env === 'object' &&
    env !== null &&
    typeof (env.outgoing as ServerResponse | undefined)?.writeHead === 'function'
    ? (env.outgoing as ServerResponse)
    : null;
}

/** The answer's X-Request-Id: the stream's headers are written by hand, past the middleware that sets it. */
function requestIdHeader(c: Context<RelayEnv>): Record<string, string> {
  return { 'X-Request-Id': c.get('requestId'), 'Referrer-Policy': 'strict-origin-when-cross-origin' };
}
