// Whether a call to the events path carries a correctly signed event: the one fact that tells the service from anyone
// else on the internet, wherever the call comes from. Checked on a body read only up to the contract's cap, so a call
// that is not signed costs at most that read and one HMAC.
import type { Context } from 'hono';
import { UPSTREAM_EVENT_MAX_BYTES, UPSTREAM_SIGNATURE_HEADER, signatureIsValid } from '../upstream/contract/index.ts';
import { readCappedBody } from './capped-body.ts';

/** With no secret (events off) nothing is signed. */
export function eventSignatureCheck(secret: string | null, now: () => number): (c: Context) => Promise<boolean> {
  if (secret === null) return async () => false;
  return async (c) => {
    const raw = await readCappedBody(c, UPSTREAM_EVENT_MAX_BYTES);
    return (
      raw !== null && signatureIsValid(secret, c.req.header(UPSTREAM_SIGNATURE_HEADER), raw, Math.floor(now() / 1000))
    );
  };
}
