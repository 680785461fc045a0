// GET /v1/logo?client_id=ID&v=HASH — the configuration's logo, served from the relay's origin from the copy the relay
// fetched with the configuration. Readable by any page (an <img> needs no CORS, and the bytes are public anyway).
import { Hono } from 'hono';
import { ApiError } from '../http/api-error.ts';
import { clientIdFromQuery } from '../http/client-id.ts';
import { withDeadline } from '../http/deadline.ts';
import type { RelayEnv } from '../http/env.ts';
import type { ConfigurationService } from '../configuration/configuration-service.ts';

/**
 * An SVG is a document that can carry script. Served with this policy, opening the logo's URL directly runs nothing
 * and loads nothing; inline styles stay, since many logos use them. As an <img> an SVG never runs script anyway.
 */
export const SVG_LOGO_POLICY = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

/** A hash-addressed URL never changes its bytes, so browsers may keep it; a new logo arrives under a new `v`. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Without the current `v` (an old page, a hand-typed URL): the current logo, checked again each time. */
const REVALIDATE = 'public, max-age=0, must-revalidate';

export function logoRoutes({
  configurations,
  deadlineMs,
}: {
  configurations: ConfigurationService;
  deadlineMs: number;
}) {
  return new Hono<RelayEnv>().get('/', async (c) => {
    const clientId = clientIdFromQuery(c.req.query('client_id'));
    c.set('clientId', clientId);
    const { logo } = await withDeadline(deadlineMs, configurations.get(clientId));
    if (logo === null) throw new ApiError('not_found');
    c.header('Content-Type', logo.type);
    c.header('Content-Length', String(logo.bytes.byteLength));
    c.header('Cache-Control', c.req.query('v') === logo.hash ? IMMUTABLE : REVALIDATE);
    c.header('ETag', `"${logo.hash}"`);
    c.header('Cross-Origin-Resource-Policy', 'cross-origin');
    if (logo.type === 'image/svg+xml') c.header('Content-Security-Policy', SVG_LOGO_POLICY);
    return c.body(logo.bytes, 200);
  });
}
