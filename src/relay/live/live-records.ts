// The records the live hub's parts share: a watch of one conversation and the streams it serves. They are mutable by
// design (a stream's cursor and status move with every write, a watch's timer with every read), and every part of the
// hub reads or writes them, so they belong to none of the parts: each imports them from here.
import type { ReadSubject } from '../conversations/read-policy.ts';
import type { StreamSink } from './stream-sink.ts';

export interface Stream {
  sink: StreamSink;
  subject: ReadSubject;
  /** The newest sequence this stream has delivered. */
  cursor: number;
  /**
   * Reading the history after its cursor with reads of its own, a page at a time and only as fast as its client takes
   * it; the watch's reads reach it once it has caught up.
   */
  catchingUp: boolean;
  /** Taken out of its watch: nothing more is written but its last frame. It still counts until its connection is gone. */
  ended: boolean;
  status: string | null;
  statusAsOf: number;
  endsAt: number;
  lastWriteAt: number;
  /** The sweep's slot this stream waits in (stream-sweep.ts). */
  sweepSlot: number;
}

/** One conversation's shared upstream reads, and the streams they serve (watch-reads.ts). */
export interface Watch {
  conversationId: string;
  streams: Set<Stream>;
  timer: NodeJS.Timeout | null;
  dueAt: number;
  /** The read it waits for is only the safety net (cadence.ts): it yields to every other read (read-scheduler.ts). */
  safetyNet: boolean;
  reading: boolean;
  /** Woken while a read ran: read again once it is done. */
  wakeAgain: boolean;
  /** A read was due while a stream was still reading its catch-up: read again as soon as that stream has caught up. */
  readOwed: boolean;
  lastActivityAt: number;
  failures: number;
  retryAfterMs: number;
}
