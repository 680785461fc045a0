import { opaqueId } from './random.ts';

export interface IssuedToken {
  access_token: string;
  refresh_token: string;
  expires_in: number;
}

export type TokenCheck = 'valid' | 'unknown' | 'expired';

export interface TokenStore {
  issue(): IssuedToken;
  check(accessToken: string): TokenCheck;
  revokeAll(): void;
  setLifetime(seconds: number): void;
}

/** Access tokens with an expiry on the simulator's own clock, so tests can expire them without waiting. */
export function createTokenStore(options: { now: () => number; lifetimeSeconds: number; prefix?: string }): TokenStore {
  const expiries = new Map<string, number>();
  let lifetimeSeconds = checkLifetime(options.lifetimeSeconds);

  return {
    issue() {
      const access_token = opaqueId(options.prefix ?? '', 32);
      expiries.set(access_token, options.now() + lifetimeSeconds * 1000);
      // The refresh token is returned as the document says, but the exchange is undocumented, so nothing accepts it.
      return { access_token, refresh_token: opaqueId('', 32), expires_in: lifetimeSeconds };
    },
    check(accessToken) {
      const expiresAt = expiries.get(accessToken);
      if (expiresAt === undefined) return 'unknown';
      if (options.now() >= expiresAt) return 'expired';
      return 'valid';
    },
    revokeAll() {
      expiries.clear();
    },
    setLifetime(seconds) {
      lifetimeSeconds = checkLifetime(seconds);
    },
  };
}

function checkLifetime(seconds: number): number {
  if (!Number.isInteger(seconds) || seconds < 0) throw new RangeError('token lifetime must be a non-negative integer');
  return seconds;
}
