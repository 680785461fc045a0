import type { Hono } from 'hono';
import type { SimulatorContext } from '../context.ts';
import { invalid, notFound, permissionDenied } from '../errors.ts';

/** `GET /api/conversations/webchat-configuration/`: exactly the documented fields, nothing more. */
export function registerWebchatConfigurationRoutes(app: Hono, ctx: SimulatorContext): void {
  app.get('/api/conversations/webchat-configuration/', ctx.auth, (c) => {
    const clientId = c.req.query('client_id');
    const format = c.req.query('format') ?? 'json';
    if (!clientId) return invalid(c, 'client_id is required.');
    if (format !== 'json') return invalid(c, 'format must be json.');
    const config = ctx.configurations.get(clientId);
    if (!config) return notFound(c);
    if (!ctx.grantedPractices.has(config.practice)) return permissionDenied(c);

    // Signed afresh on each request, on the request's own origin, so it loads whatever port the simulator is on.
    const logo = config.logo.kind === 'signed' ? ctx.logo.signedUrl(new URL(c.req.url).origin) : config.logo.value;
    return c.json(
      {
        id: config.id,
        practice: config.practice,
        webchat_domains: config.domains.map((domain, index) => ({ id: `wcd_${config.id}_${index + 1}`, domain })),
        logo_signed_url: logo,
        webchat_icon_color: config.color,
        webchat_icon_opacity: config.opacity,
        google_tag_id: config.googleTagId,
        is_active: config.isActive,
        aimee_bot_name: config.botName,
      },
      200,
    );
  });
}
