import type { Hono } from 'hono';
import { z } from 'zod';
import type { SimulatorContext } from '../context.ts';
import { apiError, invalid, permissionDenied } from '../errors.ts';
import { practiceScope } from '../grants.ts';
import { pageResponse } from '../pagination.ts';
import { optionalChoices, optionalDate, ordering } from '../query.ts';
import { addConversation, changeState, CONVERSATION_STATUSES, detail, type ConversationRecord } from '../store.ts';
import { loadConversation, readJson } from './conversation-access.ts';

// A language tag's shape (BCP 47: `es`, `zh-Hant`, `pt-BR`): the service keeps what it is told, as a record field.
const language = z.string().regex(/^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/);

const createBody = z.object({
  practice: z.string().min(1),
  channel: z.literal('webchat'),
  subject: z.string().max(200).optional(),
  language: language.optional(),
  // Assumed (docs/upstream-contract.md): the caller's reference, to find a create whose answer was lost.
  client_reference: z.string().min(1).max(100).optional(),
});

// Read-only fields sent in a PATCH are ignored, as Django REST Framework does.
const updateBody = z.object({ subject: z.string().max(200).optional(), language: language.optional() });

/** The conversation operations of the table in docs/upstream-contract.md, except messages and patients. */
export function registerConversationRoutes(app: Hono, ctx: SimulatorContext): void {
  const at = () => new Date(ctx.now()).toISOString();
  // Creation order breaks ties between equal timestamps (a fake clock makes them common).
  const created = new Map<string, number>();
  // A service that does not know `client_reference` neither keeps the field nor applies the filter (faults.ts).
  const keepsReferences = () => ctx.settings().ignoreClientReference !== true;

  app.post('/api/conversations/', ctx.auth, async (c) => {
    const body = createBody.safeParse(await readJson(c));
    if (!body.success)
      return invalid(c, 'Expected {"practice", "channel": "webchat", "subject"?, "language"?, "client_reference"?}.');
    if (!ctx.grantedPractices.has(body.data.practice)) return permissionDenied(c);
    const reference = keepsReferences() ? body.data.client_reference : undefined;
    const conversation = addConversation(ctx.store, {
      practice: body.data.practice,
      subject: body.data.subject ?? '',
      language: body.data.language ?? 'en',
      authors: ctx.authorsOf(body.data.practice),
      at: at(),
      ...(reference === undefined ? {} : { clientReference: reference }),
    });
    created.set(conversation.id, created.size);
    ctx.counters.conversationsCreated++;
    return c.json(detail(ctx.store, conversation), 201);
  });

  app.get('/api/conversations/', ctx.auth, (c) => {
    const params = new URL(c.req.url).searchParams;
    const scope = practiceScope(params, ctx.grantedPractices);
    if (!scope.ok) return permissionDenied(c);
    const status = optionalChoices(params, 'status', CONVERSATION_STATUSES);
    if (!status.ok) return invalid(c, status.detail);
    const from = optionalDate(params, 'created_at__gte');
    if (!from.ok) return invalid(c, from.detail);
    const to = optionalDate(params, 'created_at__lte');
    if (!to.ok) return invalid(c, to.detail);
    const search = (params.get('search') ?? '').trim().toLowerCase();
    const reference = keepsReferences() ? params.get('client_reference') : null;
    const direction = ordering(params, 'created_at', 'desc');

    const matchesSearch = (conversation: ConversationRecord): boolean =>
      search === '' ||
      (ctx.store.messages.get(conversation.id) ?? []).some((m) => m.text.toLowerCase().includes(search));
    const list = [...ctx.store.conversations.values()].filter((conversation) => {
      const time = Date.parse(conversation.created_at);
      return (
        scope.practices.has(conversation.practice) &&
        (!status.value || status.value.has(conversation.status)) &&
        (from.value === undefined || time >= from.value) &&
        (to.value === undefined || time <= to.value) &&
        (reference === null || conversation.client_reference === reference) &&
        matchesSearch(conversation)
      );
    });
    list.sort((a, b) => {
      const byTime =
        Date.parse(a.created_at) - Date.parse(b.created_at) || (created.get(a.id) ?? 0) - (created.get(b.id) ?? 0);
      return direction === 'asc' ? byTime : -byTime;
    });
    return pageResponse(
      c,
      list.map((conversation) => ({ ...conversation })),
    );
  });

  app.get('/api/conversations/:id/', ctx.auth, (c) => {
    const conversation = loadConversation(c, ctx);
    if (conversation instanceof Response) return conversation;
    return c.json(detail(ctx.store, conversation), 200);
  });

  app.patch('/api/conversations/:id/', ctx.auth, async (c) => {
    const conversation = loadConversation(c, ctx);
    if (conversation instanceof Response) return conversation;
    const body = updateBody.safeParse(await readJson(c));
    if (!body.success) return invalid(c, 'Expected {"subject"?, "language"?}.');
    if (body.data.subject !== undefined) conversation.subject = body.data.subject;
    if (body.data.language !== undefined) conversation.language = body.data.language;
    if (body.data.subject !== undefined || body.data.language !== undefined) conversation.updated_at = at();
    return c.json(detail(ctx.store, conversation), 200);
  });

  const resolvedError = (c: Parameters<typeof invalid>[0]) =>
    apiError(c, 400, 'conversation_resolved', 'The conversation is resolved.');

  app.post('/api/conversations/:id/agent-mode/', ctx.auth, (c) => {
    const conversation = loadConversation(c, ctx);
    if (conversation instanceof Response) return conversation;
    if (conversation.status === 'resolved') return resolvedError(c);
    changeState(ctx.store, conversation, { mode: 'agent', at: at() });
    return c.json(detail(ctx.store, conversation), 200);
  });

  app.post('/api/conversations/:id/escalate/', ctx.auth, (c) => {
    const conversation = loadConversation(c, ctx);
    if (conversation instanceof Response) return conversation;
    if (conversation.status === 'resolved') return resolvedError(c);
    // Escalating twice is not an error, but only the first brings a team member in.
    if (conversation.status !== 'escalated') {
      changeState(ctx.store, conversation, { status: 'escalated', mode: 'agent', at: at() });
      ctx.responder.afterEscalation(conversation.id);
    }
    return c.json(detail(ctx.store, conversation), 200);
  });

  app.post('/api/conversations/:id/resolve/', ctx.auth, (c) => {
    const conversation = loadConversation(c, ctx);
    if (conversation instanceof Response) return conversation;
    if (changeState(ctx.store, conversation, { status: 'resolved', at: at() })) ctx.responder.cancel(conversation.id);
    return c.json(detail(ctx.store, conversation), 200);
  });
}
