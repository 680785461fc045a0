// Small parsers for query filters. A malformed filter value is a 400, as a Django filter set answers; an
// unsupported parameter is simply never read (the document allows ignoring it).

export type Parsed<T> = { ok: true; value: T } | { ok: false; detail: string };

/** An absent or empty parameter means "no filter". */
export function optionalDate(params: URLSearchParams, name: string): Parsed<number | undefined> {
  const raw = params.get(name);
  if (raw === null || raw === '') return { ok: true, value: undefined };
  const ms = Date.parse(raw);
  return Number.isNaN(ms) ? { ok: false, detail: `${name} must be an ISO 8601 date-time.` } : { ok: true, value: ms };
}

/** `status=a` and `status__in=a,b` both narrow to a set of allowed values. */
export function optionalChoices<T extends string>(
  params: URLSearchParams,
  name: string,
  allowed: readonly T[],
): Parsed<Set<T> | undefined> {
  const single = params.get(name);
  const many = params.get(`${name}__in`);
  const values = [...csv(single), ...csv(many)];
  if (values.length === 0) return { ok: true, value: undefined };
  const chosen = new Set<T>();
  for (const value of values) {
    const match = allowed.find((a) => a === value);
    if (match === undefined) return { ok: false, detail: `${value} is not a valid ${name}.` };
    chosen.add(match);
  }
  return { ok: true, value: chosen };
}

export function csv(raw: string | null): string[] {
  if (raw === null) return [];
  return raw
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** `ordering=field` or `ordering=-field`; anything else falls back to the default, as DRF's OrderingFilter does. */
export function ordering(params: URLSearchParams, field: string, fallback: 'asc' | 'desc'): 'asc' | 'desc' {
  const raw = params.get('ordering');
  if (raw === field) return 'asc';
  if (raw === `-${field}`) return 'desc';
  return fallback;
}
