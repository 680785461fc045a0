// The live streams and the service's events: how long a stream lasts, how many this instance holds and what each may
// hold unsent, how many reads their watches run at once, and the secret the service signs its events with.
import { z } from 'zod';
import { integer } from './values.ts';

export const liveSchema = z.object({
  STREAM_LIFETIME_SECONDS: integer(300, 10, 3600),
  MAX_STREAMS: integer(20_000, 0, 1_000_000),
  // Its floor is Node's default write buffer plus the largest message frame (the longest message allowed, every
  // character escaped as JSON): a catch-up writes until the buffer is full, then one frame more, and must never be cut
  // for it.
  STREAM_MAX_UNSENT_BYTES: integer(64 * 1024, 32 * 1024, 4 * 1024 * 1024),
  UPSTREAM_READ_CONCURRENCY: integer(16, 1, 1000),
  UPSTREAM_EVENTS_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
});

export interface LiveSettings {
  /** How long a live stream lasts before the panel is asked to reconnect (jittered ±20 %). */
  streamLifetimeMs: number;
  /** The most live streams this instance holds; beyond, panels poll. */
  maxStreams: number;
  /**
   * The most bytes one live stream may have written that its client has not taken; past it the connection is cut (the
   * panel reads what it missed and reconnects). Bounds what streams that are never read can hold: MAX_STREAMS times this.
   */
  streamMaxUnsentBytes: number;
  /** The most upstream reads the live watches of this instance run at once. */
  upstreamReadConcurrency: number;
  /**
   * The secret the service signs its events with (POST /v1/upstream-events); null: the path answers 404 and watches
   * only poll. `npm start` generates one for its embedded simulator when unset.
   */
  upstreamEventsSecret: string | null;
}
