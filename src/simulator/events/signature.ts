import { createHmac } from 'node:crypto';

// The service's side of the assumed upstream-event contract (docs/upstream-contract.md, "Events"). The
// relay's module holds its own copy: the simulator is the other side of the wire and never imports relay code.

export const SIGNATURE_HEADER = 'Upstream-Signature';

/** `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`: the timestamp is signed with the body, so an
 * old signature cannot be replayed with a fresh time. */
export function signatureHeader(secret: string, rawBody: string, unixSeconds: number): string {
  const t = Math.floor(unixSeconds);
  const mac = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest('hex');
  return `t=${t},v1=${mac}`;
}
