import { csv } from './query.ts';

export type PracticeScope = { ok: true; practices: ReadonlySet<string> } | { ok: false };

/**
 * The practices a list request may see: those named by `practice` / `practice__in`, or every granted one when
 * neither is given. Naming a practice without a grant is a 403 (not an empty list), as the document's 403 rule says;
 * unknown and ungranted ids answer the same so that existence does not leak.
 */
export function practiceScope(params: URLSearchParams, granted: ReadonlySet<string>): PracticeScope {
  const named = [...csv(params.get('practice')), ...csv(params.get('practice__in'))];
  if (named.length === 0) return { ok: true, practices: granted };
  if (named.some((p) => !granted.has(p))) return { ok: false };
  return { ok: true, practices: new Set(named) };
}
