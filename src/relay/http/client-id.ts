// The configuration a request names: parsed at the boundary, the same way for every route.
import { z } from 'zod';
import { CLIENT_ID_PATTERN } from '../../shared/configuration.ts';
import { ApiError } from './api-error.ts';

export const clientIdSchema = z.string().regex(CLIENT_ID_PATTERN);

/** Reads `client_id` from the query, or fails with `bad_request`. */
export function clientIdFromQuery(value: string | undefined): string {
  const parsed = clientIdSchema.safeParse(value);
  if (!parsed.success) throw new ApiError('bad_request', undefined, 'client_id is missing or malformed.');
  return parsed.data;
}
