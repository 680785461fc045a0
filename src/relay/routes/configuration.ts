import { Hono } from 'hono';
import { clientIdFromQuery } from '../http/client-id.ts';
import { withDeadline } from '../http/deadline.ts';
import type { RelayEnv } from '../http/env.ts';
import type { ConfigurationService } from '../configuration/configuration-service.ts';
import { configurationAnswer } from '../configuration/configuration-answer.ts';
import { visitorLocale } from '../http/visitor-locale.ts';

/**
 * GET /v1/webchat-configuration?client_id=ID — readable by any origin: the loader asks for it from the practice's
 * page before it knows anything else. `locale`: the script tag's data-locale, if any. It carries nothing secret (no practice id, no token). `launcher` is what the
 * loader draws, precomputed here with the shared rules so the loader stays small.
 */
export function configurationRoutes({
  configurations,
  deadlineMs,
  publicOrigin,
}: {
  configurations: ConfigurationService;
  deadlineMs: number;
  /** The relay's public origin, which the logo URL is on; null: this request's own origin (development). */
  publicOrigin: string | null;
}) {
  return new Hono<RelayEnv>().get('/', async (c) => {
    c.header('Access-Control-Allow-Origin', '*');
    const clientId = clientIdFromQuery(c.req.query('client_id'));
    c.set('clientId', clientId);
    const resolved = await withDeadline(deadlineMs, configurations.get(clientId));
    // The launcher's words come in the visitor's language (data-locale, passed as `locale`, else Accept-Language).
    c.header('Vary', 'Accept-Language');
    return c.json(configurationAnswer(resolved, publicOrigin, c.req.url, visitorLocale(c)));
  });
}
