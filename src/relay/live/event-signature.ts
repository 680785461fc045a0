// The service's signature on an upstream event (contract.ts): HMAC-SHA256 over "<timestamp>.<raw body>" with
// UPSTREAM_EVENTS_SECRET, sent as `Upstream-Signature: t=<unix seconds>,v1=<hex>`. Checked on the raw bytes, before
// the body is parsed, in constant time; a timestamp more than the allowed age from the relay's clock (either way) is
// refused, so a captured event cannot be replayed later (and within the window, its id is refused once seen).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { UPSTREAM_EVENT_MAX_AGE_SECONDS } from '../upstream/contract.ts';

const HEADER = /^t=(\d{1,12}),v1=([0-9a-f]{64})$/;

export function signEvent(secret: string, timestampSeconds: number, rawBody: string): string {
  const mac = createHmac('sha256', secret).update(`${timestampSeconds}.${rawBody}`).digest('hex');
  return `t=${timestampSeconds},v1=${mac}`;
}

export function signatureIsValid(
  secret: string,
  header: string | undefined,
  rawBody: string,
  nowSeconds: number,
): boolean {
  const match = header === undefined ? null : HEADER.exec(header);
  if (match === null) return false;
  const timestamp = Number(match[1]);
  if (Math.abs(nowSeconds - timestamp) > UPSTREAM_EVENT_MAX_AGE_SECONDS) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest();
  return timingSafeEqual(expected, Buffer.from(match[2]!, 'hex'));
}
