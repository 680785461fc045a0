import type { Context } from 'hono';
import { apiError, invalid } from './errors.ts';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

export interface Envelope<T> {
  meta: { page: number; page_total: number; page_size: number; results_total: number };
  links: { previous: string | null; self: string; next: string | null };
  results: T[];
}

const POSITIVE_INTEGER = /^[0-9]+$/;

function parsePositive(value: string | null): number | 'absent' | 'bad' {
  // An empty value is treated like an absent one, as the filters do.
  if (value === null || value === '') return 'absent';
  if (!POSITIVE_INTEGER.test(value)) return 'bad';
  const n = Number(value);
  return n >= 1 ? n : 'bad';
}

/**
 * Answers one page of `items` in the documented envelope. Links are absolute, built from the request's own URL so
 * they keep every other query parameter and work behind any host or port. Like Django REST Framework, a page past
 * the end is 404; a page_size above the maximum is capped rather than refused.
 */
export function pageResponse<T>(c: Context, items: readonly T[]): Response {
  const url = new URL(c.req.url);
  const page = parsePositive(url.searchParams.get('page'));
  const size = parsePositive(url.searchParams.get('page_size'));
  if (page === 'bad') return invalid(c, 'page must be a positive integer.');
  if (size === 'bad') return invalid(c, 'page_size must be a positive integer.');

  const pageNumber = page === 'absent' ? 1 : page;
  const pageSize = size === 'absent' ? DEFAULT_PAGE_SIZE : Math.min(size, MAX_PAGE_SIZE);
  const pageTotal = Math.max(1, Math.ceil(items.length / pageSize));
  if (pageNumber > pageTotal) return apiError(c, 404, 'not_found', 'Invalid page.');

  const link = (n: number): string => {
    const target = new URL(url);
    target.searchParams.set('page', String(n));
    return target.toString();
  };
  const start = (pageNumber - 1) * pageSize;
  const envelope: Envelope<T> = {
    meta: { page: pageNumber, page_total: pageTotal, page_size: pageSize, results_total: items.length },
    links: {
      previous: pageNumber > 1 ? link(pageNumber - 1) : null,
      self: link(pageNumber),
      next: pageNumber < pageTotal ? link(pageNumber + 1) : null,
    },
    results: items.slice(start, start + pageSize),
  };
  return c.json(envelope, 200);
}
