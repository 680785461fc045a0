import type { Hono } from 'hono';
import { z } from 'zod';
import type { SimulatorContext } from '../context.ts';
import { apiError, invalid } from '../errors.ts';
import { pageResponse } from '../pagination.ts';
import { addMessage } from '../store.ts';
import { loadConversation, readJson } from './conversation-access.ts';

export const MAX_MESSAGE_LENGTH = 4000;

const messageBody = z.object({
  text: z
    .string()
    .max(MAX_MESSAGE_LENGTH)
    .refine((text) => text.trim() !== ''),
  sender: z.literal('visitor'),
});

/** Send a message and read messages after a cursor (`sequence`). */
export function registerMessageRoutes(app: Hono, ctx: SimulatorContext): void {
  app.post('/api/conversations/:id/messages/', ctx.auth, async (c) => {
    const conversation = loadConversation(c, ctx);
    if (conversation instanceof Response) return conversation;
    const body = messageBody.safeParse(await readJson(c));
    if (!body.success) {
      return invalid(c, `Expected {"text": 1 to ${MAX_MESSAGE_LENGTH} characters, "sender": "visitor"}.`);
    }
    if (conversation.status === 'resolved') {
      return apiError(c, 400, 'conversation_resolved', 'The conversation is resolved.');
    }
    const message = addMessage(ctx.store, conversation, {
      sender: 'visitor',
      authorName: 'Visitor',
      text: body.data.text,
      at: new Date(ctx.now()).toISOString(),
    });
    ctx.counters.messagesReceived++;
    ctx.responder.afterVisitorMessage(conversation.id, body.data.text);
    return c.json(message, 201);
  });

  app.get('/api/conversations/:id/messages/', ctx.auth, (c) => {
    const conversation = loadConversation(c, ctx);
    if (conversation instanceof Response) return conversation;
    const raw = c.req.query('after') ?? '';
    if (raw !== '' && !/^[0-9]+$/.test(raw)) return invalid(c, 'after must be a sequence number (0 or more).');
    const after = raw === '' ? 0 : Number(raw);
    const messages = (ctx.store.messages.get(conversation.id) ?? []).filter((m) => m.sequence > after);
    return pageResponse(c, messages);
  });
}
