// Walking a paginated list by following links.next until it is null (service-interface.md, Pagination), with
// guards so that a broken or hostile upstream cannot make us loop: a link seen before, or too many pages.
import type { z } from 'zod';
import type { Cancellation } from '../cancellation.ts';
import { UpstreamError } from '../errors.ts';
import type { Query, UpstreamHttp } from './upstream-http.ts';
import { page } from './schemas.ts';

export const DEFAULT_MAX_PAGES = 1_000;

export interface WalkOptions {
  /** Values for the path template's placeholders (see UpstreamHttp.request). */
  params?: Readonly<Record<string, string>>;
  maxPages?: number;
  signal?: Cancellation;
}

export async function* walkPages<S extends z.ZodType>(
  http: UpstreamHttp,
  path: string,
  query: Query,
  itemSchema: S,
  { params = {}, maxPages = DEFAULT_MAX_PAGES, signal }: WalkOptions = {},
): AsyncGenerator<z.output<S>, void, undefined> {
  const envelope = page(itemSchema);
  const seen = new Set<string>();
  const first = { schema: envelope, params, query };
  let current = await http.request('GET', path, signal ? { ...first, signal } : first);
  let pages = 1;
  for (;;) {
    seen.add(normalise(current.links.self));
    yield* current.results as z.output<S>[];
    const next = current.links.next;
    if (next === null) return;
    const key = normalise(next);
    if (seen.has(key) || pages >= maxPages) throw new UpstreamError('upstream_bad_response', { path });
    seen.add(key);
    current = await http.getAbsolute(next, envelope, signal ? { route: path, signal } : { route: path });
    pages += 1;
  }
}

export async function collectAll<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

function normalise(link: string): string {
  try {
    return new URL(link, 'http://relative.invalid/').href;
  } catch {
    return link;
  }
}
