// Who a conversation call speaks for: the claims of the sealed handle in `Authorization: Bearer HANDLE`. Every route on
// a conversation starts here, so each refuses a missing, malformed, forged, altered or expired handle the same way:
// `session_expired`, before any upstream call.
import type { Context } from 'hono';
import { ApiError } from '../http/api-error.ts';
import { bearerHandle } from './bearer-handle.ts';
import type { RelayEnv } from '../http/env.ts';
import type { HandleClaims, HandleSealer } from '../conversations/handles.ts';

/**
 * A sealed, unexpired handle's claims. Whether it is retired, and whether its conversation may still be read or
 * written, is the read policy's to say (read-policy.ts), so no route decides that on its own.
 */
export function createHandleClaims(handles: HandleSealer) {
  return (c: Context<RelayEnv>): HandleClaims => {
    const claims = handles.open(bearerHandle(c.req.header('Authorization')));
    if (claims === null) throw new ApiError('session_expired');
    c.set('clientId', claims.clientId);
    return claims;
  };
}
