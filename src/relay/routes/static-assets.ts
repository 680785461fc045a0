// The built browser files: the loader (short cache, so a fix reaches every practice within minutes), and the hashed
// frame and demo assets (cached for a year: their names change whenever their content does).
import { join } from 'node:path';
import { Hono } from 'hono';
import type { RelayEnv } from '../http/env.ts';
import { readUnder } from '../http/files.ts';

export const LOADER_CACHE_CONTROL = 'public, max-age=300';
export const IMMUTABLE_CACHE_CONTROL = 'public, max-age=31536000, immutable';

// The demo page loads only the relay's own code; it embeds the preview frame (from the relay) and checks logos, which
// may be any https address (or the development simulator's http one).
const DEMO_PAGE_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' https: http://127.0.0.1:* http://localhost:*",
  "frame-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join('; ');

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};

function contentType(path: string): string {
  const dot = path.lastIndexOf('.');
  return CONTENT_TYPES[dot === -1 ? '' : path.slice(dot)] ?? 'application/octet-stream';
}

export function staticRoutes({ distDir, publicDir }: { distDir: string; publicDir: string }) {
  return new Hono<RelayEnv>()
    .get('/loader.js', async (c) => {
      const file = await readUnder(distDir, 'loader.js');
      if (file === null) return c.text('The loader has not been built: run `npm run build`.', 503);
      c.header('Content-Type', CONTENT_TYPES['.js']);
      c.header('Cache-Control', LOADER_CACHE_CONTROL);
      // Host pages with Cross-Origin-Embedder-Policy may still load the script.
      c.header('Cross-Origin-Resource-Policy', 'cross-origin');
      return c.body(new Uint8Array(file));
    })
    .get('/assets/:name{.+}', async (c) => {
      const name = c.req.param('name');
      const file = await readUnder(join(distDir, 'assets'), name);
      if (file === null) return c.text('Not found.', 404);
      c.header('Content-Type', contentType(name));
      c.header('Cache-Control', IMMUTABLE_CACHE_CONTROL);
      c.header('Cross-Origin-Resource-Policy', 'cross-origin');
      return c.body(new Uint8Array(file));
    })
    // The demo page is built by Vite into dist/demo/; its scripts and styles are hashed assets under /assets/.
    .get('/demo', (c) => c.redirect('/demo/', 301))
    .get('/demo/', async (c) => {
      const file = await readUnder(distDir, 'demo/index.html');
      if (file === null) return c.text('The demo page has not been built: run `npm run build`.', 503);
      c.header('Cache-Control', 'no-cache');
      c.header('Content-Security-Policy', DEMO_PAGE_POLICY);
      return c.html(file.toString('utf8'));
    })
    // Browsers ask every origin for a favicon; answering "nothing" keeps a 404 out of practices' consoles.
    .get('/favicon.ico', (c) => c.body(null, 204))
    .get('/robots.txt', async (c) => {
      const file = await readUnder(publicDir, 'robots.txt');
      if (file === null) return c.text('Not found.', 404);
      c.header('Content-Type', CONTENT_TYPES['.txt']);
      return c.body(new Uint8Array(file));
    });
}
