// Conversation handles: what the browser holds instead of an upstream conversation id. A handle is sealed with
// AES-256-GCM, so it cannot be read (the upstream id stays hidden), forged or altered, and it is bound to the
// configuration it was made for and to an expiry. It carries no token or credential.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

export interface HandleClaims {
  /** The webchat configuration (client_id) the conversation was opened under. */
  clientId: string;
  /** The upstream conversation id; never leaves the relay in the clear. */
  conversationId: string;
  /** Expiry, in ms since the epoch. */
  expiresAt: number;
}

export interface HandleSealer {
  seal(claims: HandleClaims): string;
  /** The claims, or null when the handle is malformed, forged, altered or expired. */
  open(handle: string): HandleClaims | null;
}

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
// Handles are short; anything longer is not ours and is refused before any crypto work.
export const MAX_HANDLE_LENGTH = 512;
/**
 * Opened handles kept, so a panel polling every few seconds does not pay AES-GCM, base64url and JSON per poll (about
 * a twentieth of the relay's CPU per read under load). Only handles that opened are kept, under their exact spelling;
 * the expiry is checked on every open, and the caller's revocation check is untouched. Bounded: the oldest is dropped.
 */
export const OPENED_HANDLE_CACHE_SIZE = 4096;

export function createHandleSealer(
  secret: Uint8Array,
  now: () => number = Date.now,
  cacheSize = OPENED_HANDLE_CACHE_SIZE,
): HandleSealer {
  // A key of its own, derived from the configured secret, so the secret may serve other purposes later.
  const key = Buffer.from(hkdfSync('sha256', secret, 'practice-webchat', 'conversation-handle/v1', 32));
  const opened = new Map<string, Readonly<HandleClaims>>();

  return {
    seal(claims) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const plaintext = Buffer.from(
        JSON.stringify([VERSION, claims.clientId, claims.conversationId, claims.expiresAt]),
      );
      const sealed = Buffer.concat([iv, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]).toString(
        'base64url',
      );
      // A handle that open() and the frame would refuse must not be handed out: fail loudly here instead.
      if (sealed.length > MAX_HANDLE_LENGTH)
        throw new RangeError('conversation handle would exceed its maximum length');
      return sealed;
    },

    open(handle) {
      const known = opened.get(handle);
      if (known !== undefined) {
        if (known.expiresAt > now()) return known;
        opened.delete(handle);
        return null;
      }
      const claims = openSealed(handle);
      if (claims === null) return null;
      if (opened.size >= cacheSize) opened.delete(opened.keys().next().value as string);
      opened.set(handle, claims);
      return claims;
    },
  };

  /** The full check: alphabet, the one canonical spelling, the AES-GCM tag, the claims' shape and the expiry. */
  function openSealed(handle: string): Readonly<HandleClaims> | null {
    if (handle.length === 0 || handle.length > MAX_HANDLE_LENGTH || !/^[A-Za-z0-9_-]+$/.test(handle)) return null;
    const sealed = Buffer.from(handle, 'base64url');
    // Only the one spelling seal() makes: the decoder ignores the unused low bits of the last character, so without
    // this one handle would have several spellings, and a list of retired or logged handles could be side-stepped.
    if (sealed.toString('base64url') !== handle) return null;
    if (sealed.length <= IV_BYTES + TAG_BYTES) return null;
    let plaintext: string;
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      plaintext = Buffer.concat([
        decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      return null;
    }
    const claims = parseClaims(plaintext);
    // Frozen: the same object is handed to every request with this handle.
    return claims !== null && claims.expiresAt > now() ? Object.freeze(claims) : null;
  }
}

function parseClaims(plaintext: string): HandleClaims | null {
  let value: unknown;
  try {
    value = JSON.parse(plaintext);
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length !== 4) return null;
  const [version, clientId, conversationId, expiresAt] = value as unknown[];
  if (version !== VERSION || typeof clientId !== 'string' || typeof conversationId !== 'string') return null;
  if (typeof expiresAt !== 'number' || !Number.isFinite(expiresAt)) return null;
  return { clientId, conversationId, expiresAt };
}
