// The visitor's language for a request: `?locale=` (the script tag's data-locale, passed on by the loader, or the
// frame's) when it names one we have, else the request's Accept-Language, which browsers build from the same list as
// navigator.languages; else English. Parsed by the shared rules, never echoed as given.
import type { Context } from 'hono';
import { negotiateLocale, parseAcceptLanguage } from '../../shared/locale-negotiation.ts';
import type { LocaleTag } from '../../shared/locales/locale-list.ts';

export function visitorLocale(c: Context): LocaleTag {
  return negotiateLocale(c.req.query('locale'), parseAcceptLanguage(c.req.header('Accept-Language')));
}
