// POST /v1/upstream-events: the service says a conversation changed (the assumed contract at the end of
// upstream/contract.ts). The raw body is size-checked and its signature verified before anything is parsed, so a
// forged or stale event costs one HMAC and nothing else; a valid event's id is remembered so its replay (or the
// service's own retry) wakes nothing. What a valid event does is small on purpose: it names a conversation to read
// now, through the event bus, on whichever instance holds its streams. It carries no text and changes no state.
import { Hono } from 'hono';
import { ApiError } from '../http/api-error.ts';
import type { RelayEnv } from '../http/env.ts';
import type { EventBus } from '../live/event-bus.ts';
import type { EventIdStore } from '../live/event-ids.ts';
import { signatureIsValid } from '../live/event-signature.ts';
import { UPSTREAM_EVENT_MAX_BYTES, UPSTREAM_SIGNATURE_HEADER, upstreamEventSchema } from '../upstream/contract.ts';

/** How a call to the events path ended, for metrics: a fixed list. */
export type UpstreamEventOutcome = 'accepted' | 'replayed' | 'bad_signature' | 'bad_request';

export interface UpstreamEventRouteOptions {
  /** UPSTREAM_EVENTS_SECRET. */
  secret: string;
  eventIds: EventIdStore;
  events: EventBus;
  now?: () => number;
  onEvent?: (outcome: UpstreamEventOutcome) => void;
}

export function upstreamEventRoutes({
  secret,
  eventIds,
  events,
  now = Date.now,
  onEvent = () => {},
}: UpstreamEventRouteOptions) {
  return new Hono<RelayEnv>().post('/', async (c) => {
    // Declared too long: refused before a byte of it is read.
    if (Number(c.req.header('Content-Length') ?? 0) > UPSTREAM_EVENT_MAX_BYTES) throw new ApiError('payload_too_large');
    const raw = await c.req.text();
    if (Buffer.byteLength(raw) > UPSTREAM_EVENT_MAX_BYTES) throw new ApiError('payload_too_large');
    if (!signatureIsValid(secret, c.req.header(UPSTREAM_SIGNATURE_HEADER), raw, Math.floor(now() / 1000))) {
      onEvent('bad_signature');
      throw new ApiError('bad_signature');
    }
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      json = undefined;
    }
    const event = upstreamEventSchema.safeParse(json);
    if (!event.success) {
      onEvent('bad_request');
      throw new ApiError(
        'bad_request',
        undefined,
        'The event is not one the relay knows (id, type, conversation, occurred_at).',
      );
    }
    if (!(await eventIds.firstSeen(event.data.id))) {
      onEvent('replayed');
      return c.body(null, 204);
    }
    onEvent('accepted');
    await events.publish(event.data.conversation);
    return c.body(null, 204);
  });
}
