// How long to trust a token. The unit of expires_in is not documented; the project assumes seconds (docs/upstream-contract.md,
// "Documented") and bounds whatever arrives, because a 401 always recovers anyway: a too-short guess
// costs one token request, a too-long one costs one retried request.

export const FALLBACK_LIFETIME_SECONDS = 60;
export const MIN_LIFETIME_SECONDS = 1;
export const MAX_LIFETIME_SECONDS = 24 * 60 * 60;
/** Refresh this much before expiry: at most a minute, at most a fifth of the lifetime. */
const EARLY_MAX_SECONDS = 60;
const EARLY_FRACTION = 0.2;

/** expires_in (any JSON value) → a lifetime in seconds within [MIN, MAX]. */
export function lifetimeSeconds(expiresIn: unknown): number {
  const value = typeof expiresIn === 'string' && expiresIn.trim() !== '' ? Number(expiresIn) : expiresIn;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return FALLBACK_LIFETIME_SECONDS;
  return Math.min(Math.max(value, MIN_LIFETIME_SECONDS), MAX_LIFETIME_SECONDS);
}

/** Milliseconds after issue at which the token should be replaced. */
export function refreshAfterMs(lifetime: number): number {
  return (lifetime - Math.min(EARLY_MAX_SECONDS, lifetime * EARLY_FRACTION)) * 1000;
}
