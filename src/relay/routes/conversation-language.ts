// PUT /v1/conversation/language {"language": "es"}: the patient switched the panel's language, and the relay tells the
// service (an assumed field of the contract, src/relay/upstream/contract.ts), so that the assistant and the team
// answer in it. A conversation call like the others: the handle in Authorization (never the URL), the same claims
// and retirement check, a parsed body, and the conversation's message quota, since it is an upstream write too.
import { Hono } from 'hono';
import { z } from 'zod';
import { LOCALE_TAGS } from '../../shared/locales/locale-list.ts';
import { ApiError } from '../http/api-error.ts';
import { withDeadline } from '../http/deadline.ts';
import type { RelayEnv } from '../http/env.ts';
import { readJson, requireJson } from '../http/json-body.ts';
import { patientLanguage } from '../http/patient-language.ts';
import { apiErrorFromUpstream } from '../http/upstream-errors.ts';
import type { HandleSealer } from '../conversations/handles.ts';
import type { RevocationStore } from '../conversations/revocations.ts';
import type { RateLimiter } from '../protection/rate-limiter.ts';
import type { UpstreamClient } from '../upstream/index.ts';
import { createHandleClaims } from './handle-claims.ts';

export interface ConversationLanguageOptions {
  upstream: UpstreamClient;
  handles: HandleSealer;
  revocations: RevocationStore;
  /** The same limiter as the conversation's messages. */
  messageLimiter: RateLimiter;
  deadlineMs: number;
}

const languageBody = z.strictObject({ language: patientLanguage });

/** Mounted at /v1, beside conversationRoutes. */
export function conversationLanguageRoutes({
  upstream,
  handles,
  revocations,
  messageLimiter,
  deadlineMs,
}: ConversationLanguageOptions) {
  const { live: liveClaims } = createHandleClaims(handles, revocations);
  return new Hono<RelayEnv>().put('/conversation/language', requireJson(), async (c) => {
    const claims = await liveClaims(c);
    const body = languageBody.safeParse(await readJson(c));
    if (!body.success)
      throw new ApiError(
        'bad_request',
        undefined,
        `The body must be {"language": "..."}, one of ${LOCALE_TAGS.join(', ')}.`,
      );
    const decision = await messageLimiter.hit(claims.conversationId);
    if (!decision.allowed) throw new ApiError('rate_limited', decision.retryAfterSeconds);
    await withDeadline(
      deadlineMs,
      upstream.updateConversation(claims.conversationId, { language: body.data.language }),
    ).catch((error: unknown) => {
      throw apiErrorFromUpstream(error);
    });
    return c.body(null, 204);
  });
}
