import type { Context } from 'hono';
import type { SimulatorContext } from '../context.ts';
import { notFound, permissionDenied } from '../errors.ts';
import type { ConversationRecord } from '../store.ts';

/** The conversation named by `:id`, or the 404 / 403 answer for it. */
export function loadConversation(c: Context, ctx: SimulatorContext): ConversationRecord | Response {
  const conversation = ctx.store.conversations.get(c.req.param('id') ?? '');
  if (!conversation) return notFound(c);
  if (!ctx.grantedPractices.has(conversation.practice)) return permissionDenied(c);
  return conversation;
}

const NOT_JSON = Symbol('not json');

/** The JSON body, or a marker when it is not JSON at all; zod decides the rest. */
export async function readJson(c: Context): Promise<unknown> {
  try {
    return await c.req.json();
  } catch {
    return NOT_JSON;
  }
}
