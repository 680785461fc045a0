// The messages of a conversation: POST sends one, exactly once however often the panel retries it; GET polls for those
// after a cursor, with the conversation's status.
import { Hono } from 'hono';
import { z } from 'zod';
import type { MessagesAfter, SentMessage } from '../../shared/wire.ts';
import { createDeliverOnce } from '../conversations/deliver-once.ts';
import { withoutText, withText } from '../conversations/sent-record.ts';
import { asOf, toWireMessage } from '../conversations/wire-message.ts';
import { ApiError } from '../http/api-error.ts';
import type { RelayEnv } from '../http/env.ts';
import { readJson, requireJson } from '../http/json-body.ts';
import { afterQuery, type ConversationCalls, Waiting } from './conversation-calls.ts';
import type { ConversationDependencies } from './conversation-dependencies.ts';

const IDEMPOTENCY_KEY = /^[A-Za-z0-9_-]{8,128}$/;
const KEY_RULE = '8–128 letters, digits, - or _';

export function messageRoutes(
  {
    upstream,
    stores,
    reads,
    limits: { messageMaxLength },
    timing,
    telemetry: { metrics },
  }: Pick<ConversationDependencies, 'upstream' | 'stores' | 'reads' | 'limits' | 'timing' | 'telemetry'>,
  {
    upstreamCall,
    explainRefusal,
    admit,
    admittedClaims,
    admitWrite,
    chargeMessageQuota,
    openedClaims,
  }: ConversationCalls,
) {
  const deliverOnce = createDeliverOnce({
    upstream,
    outcomes: stores.unknownOutcomes,
    sendWindowMs: timing.sendWindowMs,
    settleWindowMs: timing.sendSettleMs,
    now: timing.now,
    onReadBack: metrics.readBack,
  });
  const messageBody = z.strictObject({
    text: z
      .string()
      .max(messageMaxLength)
      .refine((text) => text.trim() !== ''),
  });

  const app = new Hono<RelayEnv>();
  app.post('/conversation/messages', requireJson(), async (c) => {
    const claims = await admittedClaims(c);
    const key = c.req.header('Idempotency-Key');
    if (key === undefined || !IDEMPOTENCY_KEY.test(key)) {
      throw new ApiError('bad_request', undefined, `An Idempotency-Key header (${KEY_RULE}) is required.`);
    }
    const body = messageBody.safeParse(await readJson(c));
    if (!body.success) {
      throw new ApiError(
        'bad_request',
        undefined,
        `The body must be {"text": "..."}, not blank, at most ${messageMaxLength} characters.`,
      );
    }
    await chargeMessageQuota(claims);
    // A recent status will do: the service itself refuses a message in a resolved conversation (explainRefusal).
    await admitWrite(claims);
    const text = body.data.text;
    // The store holds the upstream send itself, and the deadline applies outside it: if the browser gives up
    // waiting, the send goes on and the key stays taken until it settles, so the retry cannot send it twice. A send
    // whose answer was lost is read back before the retry sends again (deliver-once.ts).
    // With Redis, the attempt's own records go in the store's steps: one round trip before the send, one after.
    const waiting = new Waiting();
    const steps = deliverOnce.stepsOf(claims.conversationId, key, text);
    const outcome = await upstreamCall(
      stores.idempotency.run(
        claims.conversationId,
        key,
        text,
        (fingerprint, recorded) =>
          steps.send(fingerprint, recorded).then(withoutText, async (error: unknown) => {
            throw await explainRefusal(error, claims);
          }),
        waiting.onWait,
        steps.record,
      ),
      waiting,
    );
    if (outcome.kind === 'conflict') throw new ApiError('idempotency_conflict');
    if (outcome.replayed) metrics.idempotentReplay('send');
    reads.live.activity(claims.conversationId);
    const answer: SentMessage = { message: toWireMessage(withText(outcome.value, text)) };
    return c.json(answer, 201);
  });

  app.get('/conversation/messages', async (c) => {
    const opened = openedClaims(c);
    const after = afterQuery.safeParse(c.req.query('after'));
    if (!after.success) throw new ApiError('bad_request', undefined, 'after must be a whole number.');
    const cursor = after.data ?? 0;
    // The policy's answer on the handle (expired, retired) was asked as the request arrived; the read applies the rest
    // of its rules.
    const claims = await admit(c, opened);
    const read = await upstreamCall(reads.readPolicy.read(claims, cursor, { admitted: true }));
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
  });
  return app;
}
