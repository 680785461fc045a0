// GET /frame?client_id=ID — the chat panel's page. Its Content-Security-Policy names exactly the configuration's
// domains in frame-ancestors, so a browser refuses to show the panel on any other site, whatever the loader does.
import { Hono } from 'hono';
import type { RelayEnv } from '../http/env.ts';
import { withDeadline } from '../http/deadline.ts';
import type { ConfigurationService } from '../configuration/configuration-service.ts';
import { frameContentSecurityPolicy } from '../frame/content-security-policy.ts';
import { clientIdFromQuery } from '../http/client-id.ts';
import { isGa4TagId } from '../../shared/configuration.ts';
import { configurationAnswer } from '../configuration/configuration-answer.ts';
import { type FramePage, withConfiguration, withLocale } from '../frame/frame-page.ts';
import { visitorLocale } from '../http/visitor-locale.ts';
import { CATALOGS } from '../../shared/locales/catalogs.ts';
import { localeInfo } from '../../shared/locales/locale-list.ts';
import { acceptsBrotli, createPageCompressor } from '../frame/compressed-page.ts';
import { isNotModified, pageValidator } from '../frame/page-validator.ts';

/** Where the panel's GA4 beacon goes; allowed by the frame's CSP only for configurations with a GA4 tag id. */
export const GOOGLE_ANALYTICS_ORIGIN = 'https://www.google-analytics.com';

export interface FrameRouteOptions {
  configurations: ConfigurationService;
  /** The built frame page, or null when the frame has not been built as the page can carry it. */
  readFramePage: () => Promise<FramePage | null>;
  deadlineMs: number;
  /** The relay's public origin, which the logo URL is on; null: this request's own origin (development). */
  publicOrigin: string | null;
  /** Whether the demo page's preview frame (`?preview=1`) is served: only with the demo pages (DEMO_PAGES). */
  previewAllowed: boolean;
}

export function frameRoutes({
  configurations,
  readFramePage,
  deadlineMs,
  publicOrigin,
  previewAllowed,
}: FrameRouteOptions) {
  const compressedPage = createPageCompressor();
  return new Hono<RelayEnv>().get('/', async (c) => {
    // The preview relaxes the frame's policy (any https: image) for the demo page alone: without the demo, no preview.
    const preview = c.req.query('preview') === '1';
    if (preview && !previewAllowed) return c.text('Not found.', 404);
    const clientId = clientIdFromQuery(c.req.query('client_id'));
    c.set('clientId', clientId);
    const resolved = await withDeadline(deadlineMs, configurations.get(clientId));
    const { configuration } = resolved;
    const page = await readFramePage();
    if (page === null) {
      // Also a build the page cannot carry inline (frame-page.ts): this project's `npm run build` makes one it can.
      return c.text(
        'The chat panel has not been built, or not as one file the page can carry: run `npm run build`.',
        503,
      );
    }
    // The demo's preview frame may be embedded only by the relay's own pages, whatever the configuration's domains.
    const policy = frameContentSecurityPolicy({
      domains: configuration.is_active ? configuration.domains : [],
      preview,
      scriptSources: page.scriptSources,
      styleSources: page.styleSources,
      // The panel's logo is on the relay ('self'). Only the demo's preview may show a logo address being tried out.
      extraImageSources: preview ? ['https:'] : [],
      // The panel's coarse analytics beacon (src/frame/analytics.ts), only when there is a GA4 tag to send to.
      extraConnectSources: isGa4TagId(configuration.google_tag_id) ? [GOOGLE_ANALYTICS_ORIGIN] : [],
    });
    c.header('Content-Security-Policy', policy);
    // Kept by the visitor's browser only (never a shared cache), and confirmed with the relay before each use
    // (page-validator.ts).
    c.header('Cache-Control', 'private, no-cache');
    c.header('Referrer-Policy', 'no-referrer');
    // A cross-origin isolated practice page (Cross-Origin-Embedder-Policy require-corp or credentialless) shows a
    // frame only if the frame has an embedder policy of its own and allows being embedded across origins; otherwise
    // the browser puts its error page in the panel. Which sites may embed it is still frame-ancestors' to say. The
    // frame loads nothing but from the relay itself, which require-corp allows. The demo's preview, which may try out
    // a logo from any https address, is shown on the relay's own demo page only and needs neither.
    if (!preview) {
      c.header('Cross-Origin-Embedder-Policy', 'require-corp');
      c.header('Cross-Origin-Resource-Policy', 'cross-origin');
    }
    // The language the loader was told (its `locale`), else the browser's: the page carries that language only.
    const locale = visitorLocale(c);
    // The same answer as GET /v1/webchat-configuration gives, so the panel need not ask for it.
    const answer = configurationAnswer(resolved, publicOrigin, c.req.url, locale);
    const catalog = CATALOGS[locale];
    const html = withLocale(withConfiguration(page.html, answer), {
      tag: locale,
      ...localeInfo(locale),
      title: answer.launcher.label,
      catalog,
    });
    c.header('Vary', 'Accept-Encoding');
    const validator = pageValidator(policy, html);
    c.header('ETag', validator);
    if (isNotModified(c.req.header('If-None-Match'), validator)) return c.body(null, 304);
    if (!acceptsBrotli(c.req.header('Accept-Encoding'))) return c.html(html);
    // The page carries the visitor's catalog: compressed, it costs what the words cost, not their encoded bytes. The
    // encoding is named only once the body is there, so a failed compression's error answer is not labelled brotli.
    const body = await compressedPage(html);
    c.header('Content-Encoding', 'br');
    c.header('Content-Type', 'text/html; charset=UTF-8');
    return c.body(new Uint8Array(body));
  });
}
