// Who a conversation call speaks for: the claims of the sealed handle in `Authorization: Bearer HANDLE`. Every route on
// a conversation starts here, so each refuses a missing, malformed, forged, altered or expired handle the same way:
// `session_expired`, before any upstream call.
import type { Context } from 'hono';
import { ApiError } from '../http/api-error.ts';
import { bearerHandle } from './bearer-handle.ts';
import type { RelayEnv } from '../http/env.ts';
import type { HandleClaims, HandleSealer } from '../conversations/handles.ts';
import type { RevocationStore } from '../conversations/revocations.ts';

export function createHandleClaims(handles: HandleSealer, revocations: Pick<RevocationStore, 'isRevoked'>) {
  /** A sealed, unexpired handle's claims, for the routes whose read policy checks retirement itself. */
  const opened = (c: Context<RelayEnv>): HandleClaims => {
    const claims = handles.open(bearerHandle(c.req.header('Authorization')));
    if (claims === null) throw new ApiError('session_expired');
    c.set('clientId', claims.clientId);
    return claims;
  };
  /** The claims of a handle that is also live: not retired by End chat or the resolved grace, on any instance. */
  const live = async (c: Context<RelayEnv>): Promise<HandleClaims> => {
    const claims = opened(c);
    if (await revocations.isRevoked(claims.conversationId)) throw new ApiError('session_expired');
    return claims;
  };
  return { opened, live };
}
