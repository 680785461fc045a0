// What a patient can do to a conversation besides writing in it: ask for a person (escalate), or end the chat.
import { Hono } from 'hono';
import { z } from 'zod';
import type { Escalated } from '../../shared/wire.ts';
import { asOf } from '../conversations/wire-message.ts';
import { ApiError } from '../http/api-error.ts';
import type { RelayEnv } from '../http/env.ts';
import { readJson, requireJson } from '../http/json-body.ts';
import type { ConversationCalls } from './conversation-calls.ts';
import type { ConversationDependencies } from './conversation-dependencies.ts';

const escalateBody = z.strictObject({});

export function endAndEscalateRoutes(
  {
    upstream,
    handles: { revocations },
    reads: { statusReadings, live },
  }: Pick<ConversationDependencies, 'upstream' | 'handles' | 'reads'>,
  { upstreamCall, explainRefusal, admittedClaims, admitWrite }: ConversationCalls,
) {
  const app = new Hono<RelayEnv>();

  // End chat: the handle is retired on the relay for the rest of its life (any instance, when the store is shared).
  // The conversation itself stays with the practice, open, as a visitor leaving a chat does not close the case.
  // Admitted by the policy like every call, it then neither reads nor writes upstream: a resolved conversation, within
  // its grace or past it, is retired the same way (what the policy does past the grace), and End chat works while the
  // service is down.
  app.delete('/conversation', async (c) => {
    const claims = await admittedClaims(c);
    await revocations.revoke(claims.conversationId, claims.expiresAt);
    statusReadings.forget(claims.conversationId);
    // This instance's streams of the conversation (another tab's) end now, not at the watch's next read.
    live.wake(claims.conversationId);
    return c.body(null, 204);
  });

  app.post('/conversation/escalate', requireJson(), async (c) => {
    const claims = await admittedClaims(c);
    if (!escalateBody.safeParse(await readJson(c)).success)
      throw new ApiError('bad_request', undefined, 'The body must be {}.');
    // A recent status will do: the service itself refuses to escalate a resolved conversation (explainRefusal).
    await admitWrite(claims);
    const conversation = await upstreamCall(
      upstream.escalate(claims.conversationId).catch(async (error: unknown) => {
        throw await explainRefusal(error, claims);
      }),
    );
    // The service's answer is the freshest reading there is: the polls that follow reuse it, not the one before.
    const updatedAt = Date.parse(conversation.updated_at);
    const newestSequence = statusReadings.recent(claims.conversationId)?.newestSequence ?? 0;
    statusReadings.remember(claims.conversationId, { status: conversation.status, updatedAt, newestSequence });
    const answer: Escalated = { status: conversation.status, status_as_of: asOf(updatedAt) };
    live.activity(claims.conversationId);
    return c.json(answer);
  });
  return app;
}
