// PUT /v1/conversation/language {"language": "es"}: the patient switched the panel's language, and the relay tells the
// service (an assumed field of the contract, src/relay/upstream/contract/index.ts), so that the assistant and the team
// answer in it. A conversation call like the others: the handle in Authorization (never the URL), a parsed body, the
// conversation's message quota (it is an upstream write too), and the read policy before the write.
//
// The service accepts this write in a resolved conversation (unlike a message or an escalation), so the policy reads
// the status now rather than trust a recent reading, and a resolved conversation is never written to: the policy's
// `conversation_resolved`, within the grace as after it. Nobody answers in a resolved conversation, so there is nothing
// to tell the service; the panel has already redrawn itself in the new language and ignores this answer.
import { Hono } from 'hono';
import { z } from 'zod';
import { LOCALE_TAGS } from '../../shared/locales/locale-list.ts';
import { ApiError } from '../http/api-error.ts';
import type { RelayEnv } from '../http/env.ts';
import { readJson, requireJson } from '../http/json-body.ts';
import { patientLanguage } from '../http/patient-language.ts';
import type { ConversationCalls } from './conversation-calls.ts';
import type { ConversationDependencies } from './conversation-dependencies.ts';

const languageBody = z.strictObject({ language: patientLanguage });

export function languageRoutes(
  { upstream }: Pick<ConversationDependencies, 'upstream'>,
  { upstreamCall, admittedClaims, admitWrite, chargeMessageQuota }: ConversationCalls,
) {
  return new Hono<RelayEnv>().put('/conversation/language', requireJson(), async (c) => {
    const claims = await admittedClaims(c);
    const body = languageBody.safeParse(await readJson(c));
    if (!body.success)
      throw new ApiError(
        'bad_request',
        undefined,
        `The body must be {"language": "..."}, one of ${LOCALE_TAGS.join(', ')}.`,
      );
    await chargeMessageQuota(claims);
    await admitWrite(claims, { statusAgeMs: 0 });
    await upstreamCall(upstream.updateConversation(claims.conversationId, { language: body.data.language }));
    return c.body(null, 204);
  });
}
