import type { Hono } from 'hono';
import type { SimulatorContext } from '../context.ts';
import { LOGO_PATH } from '../logo.ts';

/** `GET /media/logo.svg?expires=&signature=`: the logo behind its time-limited signature, like a storage link. */
export function registerLogoRoutes(app: Hono, ctx: SimulatorContext): void {
  app.get(LOGO_PATH, (c) => {
    const check = ctx.logo.verify(c.req.query('expires'), c.req.query('signature'));
    if (!check.ok) return c.text('Forbidden', 403);
    // Cacheable only until the URL itself expires.
    c.header('Cache-Control', `private, max-age=${check.remainingSeconds}`);
    c.header('Content-Type', ctx.logoImage.contentType);
    return c.body(ctx.logoImage.body, 200);
  });
}
