// The hub's once-a-second pass over its streams: heartbeats for the quiet ones, the end of a stream whose lifetime is
// over (a reconnect hint) or whose handle has expired. It runs only while the hub holds a connection.
//
// Each stream waits in the slot of the second when it is next due a look (its heartbeat, its lifetime's end or its
// handle's expiry, whichever comes first), so that a pass visits only the streams due then, not every stream of the
// instance every second. A stream written to meanwhile (a message) is found not yet due and moved to a later slot.
import type { StreamReconnect } from '../../shared/wire.ts';
import { STREAM_HEARTBEAT_MS } from '../../shared/wire.ts';
import type { ReadPolicy } from '../conversations/read-policy.ts';
import type { Stream } from './live-records.ts';
import { sseComment, sseEvent } from './sse.ts';
import { refusalEvent, type StreamWrites } from './stream-writes.ts';

/** Encoded once: every stream writes these same bytes every 15 s. */
const HEARTBEAT = Buffer.from(sseComment('heartbeat'));
/**
 * How often streams are checked for heartbeats, lifetimes and expired handles: a stream ends at most this late, and
 * its connection is cut at most END_GRACE_MS after that.
 */
const SWEEP_MS = 1000;
/** Quiet this long, a stream gets a heartbeat at the next pass: the gap between two writes is at most a heartbeat. */
const HEARTBEAT_AFTER_MS = STREAM_HEARTBEAT_MS - SWEEP_MS / 2;

export interface StreamSweepOptions {
  policy: ReadPolicy;
  writes: StreamWrites;
  now: () => number;
}

export function createStreamSweep({ policy, writes, now }: StreamSweepOptions) {
  const { write, end } = writes;
  let sweeper: NodeJS.Timeout | null = null;
  /** Streams by the second (time / SWEEP_MS) at which each is next due a look. */
  const slots = new Map<number, Set<Stream>>();
  /** Every slot up to this one has been looked at. */
  let sweptUpTo = Math.floor(now() / SWEEP_MS);

  const dueAt = (stream: Stream) =>
    Math.min(stream.lastWriteAt + HEARTBEAT_AFTER_MS, stream.endsAt, stream.subject.expiresAt);

  function place(stream: Stream, slot: number) {
    stream.sweepSlot = Math.max(slot, sweptUpTo + 1);
    let streams = slots.get(stream.sweepSlot);
    if (streams === undefined) {
      streams = new Set();
      slots.set(stream.sweepSlot, streams);
    }
    streams.add(stream);
  }

  function look(stream: Stream, t: number) {
    if (stream.ended) return;
    if (t < dueAt(stream)) {
      place(stream, Math.floor(dueAt(stream) / SWEEP_MS));
      return;
    }
    if (policy.expired(stream.subject, t)) end(stream, refusalEvent('session_expired'));
    else if (t >= stream.endsAt) end(stream, sseEvent('reconnect', { reason: 'lifetime' } satisfies StreamReconnect));
    else write(stream, HEARTBEAT);
    // Written to: due again a heartbeat from now (or at its lifetime's end, its handle's expiry).
    if (!stream.ended) place(stream, Math.floor(dueAt(stream) / SWEEP_MS));
  }

  function sweep() {
    const t = now();
    const upTo = Math.floor(t / SWEEP_MS);
    // A handful of slots (about one a second of a heartbeat's interval): the ones due are taken out first, so that a
    // stream placed again lands in a later one.
    const due: Set<Stream>[] = [];
    for (const [slot, streams] of slots)
      if (slot <= upTo) {
        slots.delete(slot);
        due.push(streams);
      }
    sweptUpTo = Math.max(sweptUpTo, upTo);
    for (const streams of due) for (const stream of streams) look(stream, t);
  }

  return {
    /** A new stream: looked at when it is first due. */
    add(stream: Stream) {
      place(stream, Math.floor(dueAt(stream) / SWEEP_MS));
    },
    /** A stream whose connection is gone. */
    remove(stream: Stream) {
      const streams = slots.get(stream.sweepSlot);
      if (streams === undefined) return;
      streams.delete(stream);
      if (streams.size === 0) slots.delete(stream.sweepSlot);
    },
    /** With the first connection: an idle instance keeps no timer. */
    start() {
      sweeper ??= setInterval(sweep, SWEEP_MS);
      sweeper.unref();
    },
    /** With the last connection gone. */
    stop() {
      if (sweeper === null) return;
      clearInterval(sweeper);
      sweeper = null;
    },
  };
}
