// The relay's own pages: an index of what runs here, and /try, a host page with the real script tag, so a new user
// (and the browser tests) can see the widget on a page with a strict Content-Security-Policy.
import { Hono } from 'hono';
import type { RelayEnv } from '../http/env.ts';
import { clientIdFromQuery } from '../http/client-id.ts';

// The try page is a host page like a practice's: it allows scripts only from itself (the relay), no inline script or
// style, so the loader is shown to work under a strict CSP. Logos may come from the development simulator over http.
const TRY_PAGE_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' https: http://127.0.0.1:* http://localhost:*",
  "frame-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join('; ');

const escapeAttribute = (text: string) => text.replace(/[&"<>]/g, (character) => `&#${character.charCodeAt(0)};`);

export function pageRoutes() {
  return new Hono<RelayEnv>()
    .get('/', (c) => {
      c.header('Cache-Control', 'no-store');
      c.header('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'; base-uri 'none'");
      return c.html(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Practice web chat relay</title></head>
<body><main>
<h1>Practice web chat relay</h1>
<ul>
<li><a href="/demo/">Demo page</a>: preview a configuration before it goes live</li>
<li><a href="/try">Try the widget</a> on a page like a practice's</li>
<li><a href="/healthz">Health</a></li>
</ul>
</main></body></html>`);
    })
    .get('/try', (c) => {
      const clientId =
        c.req.query('client_id') === undefined ? 'demo-client' : clientIdFromQuery(c.req.query('client_id'));
      c.header('Content-Security-Policy', TRY_PAGE_POLICY);
      c.header('Cache-Control', 'no-store');
      return c.html(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Smile Dental — try the chat widget</title></head>
<body><main>
<h1>Smile Dental</h1>
<p>This page stands in for a practice's website. The chat launcher sits in the bottom corner.</p>
</main>
<script async src="/loader.js" data-client-id="${escapeAttribute(clientId)}"></script>
</body></html>`);
    });
}
