import type { Hono } from 'hono';
import { z } from 'zod';
import type { SimulatorContext } from '../context.ts';
import { invalid, notFound } from '../errors.ts';
import { pageResponse } from '../pagination.ts';
import { opaqueId } from '../random.ts';
import { loadConversation, readJson } from './conversation-access.ts';

const linkBody = z.object({ patient: z.string().trim().min(1).max(100) });

/** Linked patients of a conversation: list, link, unlink. */
export function registerPatientRoutes(app: Hono, ctx: SimulatorContext): void {
  const linksOf = (id: string) => ctx.store.patientLinks.get(id) ?? [];

  app.get('/api/conversations/:id/patients/', ctx.auth, (c) => {
    const conversation = loadConversation(c, ctx);
    if (conversation instanceof Response) return conversation;
    return pageResponse(c, linksOf(conversation.id));
  });

  app.post('/api/conversations/:id/patients/', ctx.auth, async (c) => {
    const conversation = loadConversation(c, ctx);
    if (conversation instanceof Response) return conversation;
    const body = linkBody.safeParse(await readJson(c));
    if (!body.success) return invalid(c, 'Expected {"patient": a patient identifier}.');
    const links = linksOf(conversation.id);
    if (links.some((link) => link.patient === body.data.patient)) return invalid(c, 'The patient is already linked.');
    const link = { id: opaqueId('pln_'), patient: body.data.patient, created_at: new Date(ctx.now()).toISOString() };
    ctx.store.patientLinks.set(conversation.id, [...links, link]);
    return c.json(link, 201);
  });

  app.delete('/api/conversations/:id/patients/:patient/', ctx.auth, (c) => {
    const conversation = loadConversation(c, ctx);
    if (conversation instanceof Response) return conversation;
    const links = linksOf(conversation.id);
    const patient = c.req.param('patient');
    if (!links.some((link) => link.patient === patient)) return notFound(c);
    ctx.store.patientLinks.set(
      conversation.id,
      links.filter((link) => link.patient !== patient),
    );
    return c.body(null, 204);
  });
}
