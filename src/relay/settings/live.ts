// Live delivery: the secret the service signs its events with and how many its address may send, how long a stream
// lasts, how many this instance holds and what each may hold unsent, and how many reads their watches run at once
// and, as a safety net for a lost event, a second.
import { z } from 'zod';
import { group, optionalText, whole } from './values.ts';

export const liveDelivery = group(
  'Live delivery',
  {
    upstreamEventsSecret: optionalText('UPSTREAM_EVENTS_SECRET', z.string().min(32, 'must be at least 32 characters')),
    /** Calls to POST /v1/upstream-events per source address per minute (the service's own events included). */
    upstreamEventsPerMinutePerIp: whole('UPSTREAM_EVENTS_PER_MINUTE_PER_IP', 6000, { min: 1, max: 1_000_000 }),
    /** How long a live stream lasts before the panel is asked to reconnect (jittered ±20 %). */
    streamLifetimeMs: whole('STREAM_LIFETIME_SECONDS', 300, { min: 10, max: 3600 }, 1000),
    /** The most live streams this instance holds; beyond, panels poll. */
    maxStreams: whole('MAX_STREAMS', 20_000, { min: 0, max: 1_000_000 }),
    // Its floor is Node's default write buffer plus the largest message frame (the longest message allowed, every
    // character escaped as JSON): a catch-up writes until the buffer is full, then one frame more, and must never be
    // cut for it.
    streamMaxUnsentBytes: whole('STREAM_MAX_UNSENT_BYTES', 64 * 1024, { min: 32 * 1024, max: 4 * 1024 * 1024 }),
    /** The most upstream reads the live watches of this instance run at once. */
    upstreamReadConcurrency: whole('UPSTREAM_READ_CONCURRENCY', 16, { min: 1, max: 1000 }),
    /**
     * While the service's events arrive, the safety-net reads a second this instance's idle watches make between them
     * at most (on average): past this many watches per two minutes, each one's safety net stretches.
     */
    streamSafetyNetReadsPerSecond: whole('STREAM_SAFETY_NET_READS_PER_SECOND', 50, { min: 1, max: 10_000 }),
  },
  ({ upstreamEventsSecret, ...rest }) => ({
    ...rest,
    /**
     * The secret the service signs its events with (POST /v1/upstream-events); null: the path answers 404 and watches
     * only poll. `npm start` generates one for its embedded simulator when unset.
     */
    upstreamEventsSecret: upstreamEventsSecret ?? null,
  }),
);
