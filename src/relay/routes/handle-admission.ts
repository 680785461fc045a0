// A conversation call's handle is opened, and the read policy asked whether it is retired, as the request arrives,
// beside its address quota instead of after it. With Redis both are a round trip: issued in the same turn, they leave
// in one socket write (shared-state/coalesced-writes.ts) and their answers come back together, so a poll waits for one
// round trip before going upstream instead of two one after the other. With stores in memory nothing is gained, and
// the relay does not register it (app.ts): the route then asks the policy itself, after the quota.
//
// Nothing is decided here. The policy's answer waits on the context, and the route awaits it after the quota has let
// the request through, before any upstream work, as it asked the policy itself before. A handle that does not open
// (missing, forged, expired) is left alone: the route refuses it after the quota, as it always did.
import type { MiddlewareHandler } from 'hono';
import type { HandleClaims } from '../conversations/handles.ts';
import type { ReadPolicy, ReadRefusal } from '../conversations/read-policy.ts';
import type { RelayEnv } from '../http/env.ts';

/** A conversation call's handle, opened as the request arrived, and the read policy's `admit` for it, still pending. */
export interface EarlyAdmission {
  claims: HandleClaims;
  refusal: Promise<ReadRefusal | null>;
}

// Declared the way Hono's own middleware declares what it leaves on the context (request-id's `requestId`).
declare module 'hono' {
  interface ContextVariableMap {
    /** Set for a conversation call whose handle opened; the route awaits `refusal` after the quota. */
    admission: EarlyAdmission | undefined;
  }
}

// The answer of a request the quota refuses is never awaited; the policy fails open rather than reject, but an
// unawaited rejection would end the process, so one is always handled.
const ignore = () => {};

/**
 * Starts the read policy's `admit` for the request's handle and leaves it on the context as `admission`.
 *
 * @example
 * app.use('/v1/conversation/*', startHandleAdmission({ open: createHandleClaims(sealer), readPolicy }));
 */
export function startHandleAdmission({
  open,
  readPolicy,
}: {
  /** The handle's claims, or an ApiError thrown (routes/handle-claims.ts). */
  open: (c: Parameters<MiddlewareHandler<RelayEnv>>[0]) => HandleClaims;
  readPolicy: Pick<ReadPolicy, 'admit'>;
}): MiddlewareHandler<RelayEnv> {
  return function startHandleAdmission(c, next) {
    let claims: HandleClaims;
    try {
      claims = open(c);
    } catch {
      return next();
    }
    const refusal = readPolicy.admit(claims);
    refusal.catch(ignore);
    c.set('admission', { claims, refusal });
    return next();
  };
}
