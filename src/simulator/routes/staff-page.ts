import type { Context, Hono } from 'hono';
import { STAFF_PAGE_HTML } from '../staff/page-html.ts';
import { STAFF_PAGE_SCRIPT } from '../staff/page-script.ts';
import { STAFF_PAGE_CSS } from '../staff/page-style.ts';

// Its own files only: no inline script or style, no frames, forms that go nowhere but its own script.
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function serve(c: Context, body: string, contentType: string): Response {
  c.header('Content-Type', contentType);
  c.header('Content-Security-Policy', CSP);
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Referrer-Policy', 'no-referrer');
  c.header('Cache-Control', 'no-cache');
  return c.body(body, 200);
}

/** `GET /staff`: the page where a person plays the practice's team member (its JSON: routes/staff-api.ts). */
export function registerStaffPageRoutes(app: Hono): void {
  app.get('/staff', (c) => serve(c, STAFF_PAGE_HTML, 'text/html; charset=utf-8'));
  app.get('/staff/', (c) => c.redirect('/staff', 308));
  app.get('/staff/staff.js', (c) => serve(c, STAFF_PAGE_SCRIPT, 'text/javascript; charset=utf-8'));
  app.get('/staff/staff.css', (c) => serve(c, STAFF_PAGE_CSS, 'text/css; charset=utf-8'));
}
