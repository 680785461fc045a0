// The hub's once-a-second pass over its streams: heartbeats for the quiet ones, the end of a stream whose lifetime is
// over (a reconnect hint) or whose handle has expired. It runs only while the hub holds a connection.
import type { StreamReconnect } from '../../shared/wire.ts';
import { STREAM_HEARTBEAT_MS } from '../../shared/wire.ts';
import type { ReadPolicy } from '../conversations/read-policy.ts';
import type { Stream, Watch } from './live-records.ts';
import { sseComment, sseEvent } from './sse.ts';
import { refusalEvent, type StreamWrites } from './stream-writes.ts';

/** Encoded once: every stream writes these same bytes every 15 s. */
const HEARTBEAT = Buffer.from(sseComment('heartbeat'));
/**
 * How often streams are checked for heartbeats, lifetimes and expired handles: a stream ends at most this late, and
 * its connection is cut at most END_GRACE_MS after that.
 */
const SWEEP_MS = 1000;

export interface StreamSweepOptions {
  watches: Map<string, Watch>;
  policy: ReadPolicy;
  writes: StreamWrites;
  now: () => number;
}

export function createStreamSweep({ watches, policy, writes, now }: StreamSweepOptions) {
  const { write, end } = writes;
  let sweeper: NodeJS.Timeout | null = null;

  function sweep() {
    const t = now();
    for (const watch of watches.values()) {
      // Allocated only for a watch with a stream to end: the sweep visits every watch every time.
      let ending: [Stream, string][] | null = null;
      for (const stream of watch.streams) {
        const last = policy.expired(stream.subject, t)
          ? refusalEvent('session_expired')
          : t >= stream.endsAt
            ? sseEvent('reconnect', { reason: 'lifetime' } satisfies StreamReconnect)
            : null;
        if (last !== null) {
          ending ??= [];
          ending.push([stream, last]);
        } else if (t - stream.lastWriteAt >= STREAM_HEARTBEAT_MS - SWEEP_MS / 2) write(stream, HEARTBEAT);
      }
      if (ending !== null) for (const [stream, last] of ending) end(stream, last);
    }
  }

  return {
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
