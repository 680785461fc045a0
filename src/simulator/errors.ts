import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** The assumed upstream error body (docs/upstream-contract.md): `{detail, code}`. */
export function apiError(c: Context, status: ContentfulStatusCode, code: string, detail: string): Response {
  return c.json({ detail, code }, status);
}

export const notFound = (c: Context): Response => apiError(c, 404, 'not_found', 'Not found.');

export const permissionDenied = (c: Context): Response =>
  apiError(c, 403, 'permission_denied', 'You do not have permission to perform this action.');

export const invalid = (c: Context, detail: string): Response => apiError(c, 400, 'invalid', detail);
