// ASSUMED: upstream events. The service calls the relay when a conversation changes, so that a watched conversation is
// read at once instead of at the next poll. The event names the conversation and the kind of change, never message
// text: the relay reads what changed through the operations (operations.ts), as for a poll. An event only wakes a read, so a
// lost event costs latency (the watch still polls slowly), never a message.
//
//   POST {relay}/v1/upstream-events
//   Content-Type: application/json
//   Upstream-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(UPSTREAM_EVENTS_SECRET, "<t>.<raw body>")>
//   {"id": "<unique event id>", "type": "conversation.message_created" | "conversation.status_changed",
//    "conversation": "<conversation id>", "occurred_at": "<ISO 8601>"}
//
// The relay answers 204 to a valid event, 401 `bad_signature` when the signature is missing, wrong or its timestamp
// is more than UPSTREAM_EVENT_MAX_AGE_SECONDS from the relay's clock (either way), and 204 again, without reading
// anything, to an event id it has already accepted (a replay or the service's own retry).
//
// The signature is checked on the raw bytes, before the body is parsed, in constant time; a timestamp more than the
// allowed age from the relay's clock (either way) is refused, so a captured event cannot be replayed later (and
// within the window, its id is refused once seen).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

export const UPSTREAM_EVENTS_PATH = '/v1/upstream-events';
export const UPSTREAM_SIGNATURE_HEADER = 'Upstream-Signature';
export const UPSTREAM_EVENT_MAX_AGE_SECONDS = 300;
/** An event body is a few hundred bytes; anything far larger is refused before it is parsed or its MAC computed. */
export const UPSTREAM_EVENT_MAX_BYTES = 4096;

export const upstreamEventSchema = z.object({
  id: z.string().min(1).max(200),
  type: z.enum(['conversation.message_created', 'conversation.status_changed']),
  conversation: z.string().min(1).max(200),
  occurred_at: z.string().datetime({ offset: true }),
});
export type UpstreamEvent = z.infer<typeof upstreamEventSchema>;

/**
 * What an event says changed: a status event may hide a new status (escalated, resolved) behind a kept reading; a
 * message event only announces new messages, so the status reading kept beside the watch still holds.
 */
export function changeKindOf(event: UpstreamEvent): 'status' | 'messages' {
  return event.type === 'conversation.status_changed' ? 'status' : 'messages';
}

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
