// GET /v1/locales/TAG — one language's catalog, for the panel's language switch (the frame page already carries the
// visitor's first language). Static words, the same for everyone: cacheable, and readable only by the relay's own
// pages (no CORS header).
import { Hono } from 'hono';
import type { RelayEnv } from '../http/env.ts';
import { ApiError } from '../http/api-error.ts';
import { CATALOGS } from '../../shared/locales/catalogs.ts';
import { isLocaleTag } from '../../shared/locales/locale-list.ts';

export function localeRoutes() {
  return new Hono<RelayEnv>().get('/:tag', (c) => {
    const tag = c.req.param('tag');
    if (!isLocaleTag(tag)) throw new ApiError('not_found');
    c.header('Cache-Control', 'public, max-age=3600');
    return c.json({ locale: tag, catalog: CATALOGS[tag] });
  });
}
