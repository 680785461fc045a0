import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { SimulatorContext } from '../context.ts';
import { apiError, invalid, notFound } from '../errors.ts';
import { addMessage, changeState, detail, type ConversationRecord } from '../store.ts';
import { readJson } from './conversation-access.ts';
import { MAX_MESSAGE_LENGTH } from './messages.ts';

// The staff page's JSON (docs/simulator.md, "Staff page"): the practice's side, where a person plays the
// team member. No Bearer token: it is the service's own tool, answered on loopback only (staff/loopback-only.ts).

const replyBody = z.object({
  text: z
    .string()
    .max(MAX_MESSAGE_LENGTH)
    .refine((text) => text.trim() !== ''),
});

const afterQuery = z
  .string()
  .regex(/^[0-9]{1,15}$/)
  .transform(Number)
  .optional();

export const STAFF_API = '/staff/api/conversations';

export function registerStaffApiRoutes(app: Hono, ctx: SimulatorContext): void {
  const at = () => new Date(ctx.now()).toISOString();

  const summary = (conversation: ConversationRecord) => ({
    ...detail(ctx.store, conversation),
    practice_name: ctx.practices.get(conversation.practice)?.name ?? conversation.practice,
  });

  const load = (c: Context): ConversationRecord | Response =>
    ctx.store.conversations.get(c.req.param('id') ?? '') ?? notFound(c);

  // Message text: never kept by a browser cache or a proxy.
  app.use('/staff/api/*', async function noStore(c, next) {
    await next();
    c.header('Cache-Control', 'no-store');
  });

  // Newest first: the store keeps conversations in the order they were created.
  app.get(STAFF_API, (c) =>
    c.json({ conversations: [...ctx.store.conversations.values()].reverse().map(summary) }, 200),
  );

  app.get(`${STAFF_API}/:id`, (c) => {
    const conversation = load(c);
    if (conversation instanceof Response) return conversation;
    const after = afterQuery.safeParse(c.req.query('after'));
    if (!after.success) return invalid(c, 'after must be a sequence number (0 or more).');
    const authors = ctx.store.authors.get(conversation.id);
    return c.json(
      {
        conversation: {
          ...summary(conversation),
          bot_name: authors?.bot ?? '',
          team_member_name: authors?.teamMember ?? '',
        },
        messages: (ctx.store.messages.get(conversation.id) ?? []).filter((m) => m.sequence > (after.data ?? 0)),
      },
      200,
    );
  });

  app.post(`${STAFF_API}/:id/messages`, async (c) => {
    const conversation = load(c);
    if (conversation instanceof Response) return conversation;
    // JSON only: a form or a text/plain post from a page elsewhere never reaches the store.
    if (!/^application\/json\s*(;|$)/i.test(c.req.header('Content-Type') ?? '')) {
      return apiError(c, 415, 'unsupported_media_type', 'Send the reply as application/json.');
    }
    const body = replyBody.safeParse(await readJson(c));
    if (!body.success) return invalid(c, `Expected {"text": 1 to ${MAX_MESSAGE_LENGTH} characters}.`);
    if (conversation.status === 'resolved')
      return apiError(c, 400, 'conversation_resolved', 'The conversation is resolved.');
    const now = at();
    // A person has taken the conversation: no bot reply and no simulated team member from now on.
    changeState(ctx.store, conversation, { mode: 'agent', at: now });
    ctx.responder.staffJoined(conversation.id);
    const teamMember = ctx.store.authors.get(conversation.id)?.teamMember ?? 'Team member';
    const message = addMessage(ctx.store, conversation, {
      sender: 'agent',
      authorName: teamMember,
      text: body.data.text,
      at: now,
    });
    return c.json(message, 201);
  });

  app.post(`${STAFF_API}/:id/resolve`, (c) => {
    const conversation = load(c);
    if (conversation instanceof Response) return conversation;
    if (changeState(ctx.store, conversation, { status: 'resolved', at: at() })) ctx.responder.cancel(conversation.id);
    return c.json(summary(conversation), 200);
  });
}
