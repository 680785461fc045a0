// The built browser files: the loader (short cache, so a fix reaches every practice within minutes), and the hashed
// frame and demo assets (cached for a year: their names change whenever their content does). Both are sent
// compressed at build time, as the browser's Accept-Encoding allows. The demo page and its assets are served only
// with DEMO_PAGES (on in development, off in production).
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono, type Context } from 'hono';
import { etag } from 'hono/etag';
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

/** Headers for a file that was found; Vary on every representation, so no cache hands br to a browser without it
 * (serveStatic adds Vary only when it picks a compressed file). */
function foundHeaders(cacheControl: string) {
  return (_path: string, c: Context<RelayEnv>) => {
    c.header('Cache-Control', cacheControl);
    // Host pages with Cross-Origin-Embedder-Policy may still load the script.
    c.header('Cross-Origin-Resource-Policy', 'cross-origin');
    // Readable by any page: loader.js imports its second file as a module, which a browser fetches with CORS; and a
    // tag runner that fetches loader.js into a worker (Partytown) gets it, so that it can say why it will not run
    // there. Every file here is public, and the answer carries no credential.
    c.header('Access-Control-Allow-Origin', '*');
    if (!c.res.headers.has('Vary')) c.header('Vary', 'Accept-Encoding');
  };
}

/** Every file of the demo page's build is named so (vite.config.ts), which is how it is left out when demo pages are off. */
export const DEMO_ASSET_PREFIX = 'demo-';

export function staticRoutes({
  distDir,
  publicDir,
  demoPages,
}: {
  distDir: string;
  publicDir: string;
  demoPages: boolean;
}) {
  // `npm run build` writes a .br (brotli, quality 11) and a .gz beside each file (scripts/precompress.mjs);
  // @hono/node-server's serveStatic picks the one the browser's Accept-Encoding allows, else the plain file, and
  // refuses paths that step outside its root.
  const loader = serveStatic({
    root: distDir,
    path: 'loader.js',
    precompressed: true,
    onFound: foundHeaders(LOADER_CACHE_CONTROL),
  });
  // Its source map, for a developer who asks for it by name: loader.js does not name it, so no browser fetches it.
  const loaderMap = serveStatic({ root: distDir, path: 'loader.js.map', onFound: foundHeaders(LOADER_CACHE_CONTROL) });
  const assets = serveStatic({ root: distDir, precompressed: true, onFound: foundHeaders(IMMUTABLE_CACHE_CONTROL) });
  const routes = new Hono<RelayEnv>()
    // The loader changes in place (its URL is in every practice's page), so it is revalidated after max-age: an
    // ETag (one per encoding, from the bytes sent) lets an unchanged loader cost a 304.
    .get('/loader.js', etag(), async (c, next) => {
      const found = await loader(c, next);
      return found ?? c.text('The loader has not been built: run `npm run build`.', 503);
    })
    .get('/loader.js.map', loaderMap)
    // Without demo pages, the demo's assets fall through to not found, as if they had never been built.
    .get('/assets/:name{.+}', (c, next) =>
      !demoPages && c.req.param('name').startsWith(DEMO_ASSET_PREFIX) ? next() : assets(c, next),
    )
    // Browsers ask every origin for a favicon; answering "nothing" keeps a 404 out of practices' consoles.
    .get('/favicon.ico', (c) => c.body(null, 204))
    .get('/robots.txt', async (c) => {
      const file = await readUnder(publicDir, 'robots.txt');
      if (file === null) return c.text('Not found.', 404);
      c.header('Content-Type', 'text/plain; charset=utf-8');
      return c.body(new Uint8Array(file));
    });
  if (!demoPages) return routes;
  // The demo page is built by Vite into dist/demo/; its scripts and styles are hashed assets under /assets/.
  return routes
    .get('/demo', (c) => c.redirect('/demo/', 301))
    .get('/demo/', async (c) => {
      const file = await readUnder(distDir, 'demo/index.html');
      if (file === null) return c.text('The demo page has not been built: run `npm run build`.', 503);
      c.header('Cache-Control', 'no-cache');
      c.header('Content-Security-Policy', DEMO_PAGE_POLICY);
      return c.html(file.toString('utf8'));
    });
}
