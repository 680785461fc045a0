// What the hub writes to one stream, and how a stream ends. Every write goes through here so that the cap on unsent
// bytes holds for all of them: a client that stops reading is cut, not buffered for.
import type { StreamStatus, WireMessage } from '../../shared/wire.ts';
import type { ReadRefusal } from '../conversations/read-policy.ts';
import { asOf } from '../conversations/wire-message.ts';
import type { Stream, Watch } from './live-records.ts';
import { sseEvent } from './sse.ts';

const REFUSAL_TEXT: Record<ReadRefusal, string> = {
  session_expired: 'The conversation has expired; start a new one.',
  conversation_resolved: 'The conversation has ended; start a new one.',
};
export const refusalEvent = (code: ReadRefusal) => sseEvent('error', { error: { code, message: REFUSAL_TEXT[code] } });
export const statusOf = (conversation: { status: StreamStatus['status']; updatedAt: number }): StreamStatus => ({
  status: conversation.status,
  status_as_of: asOf(conversation.updatedAt),
});

/** A message as its frame: serialised once, however many streams of a watch it is written to. */
export interface MessageFrame {
  sequence: number;
  frame: string;
}
export const messageFrames = (messages: readonly WireMessage[]): MessageFrame[] =>
  messages.map((message) => ({ sequence: message.sequence, frame: sseEvent('message', message, message.sequence) }));

/** A status and its frame, serialised the first time a stream needs it and then shared by the others. */
export interface StatusFrame {
  status: StreamStatus;
  frame(): string;
}
export function statusFrame(status: StreamStatus): StatusFrame {
  let frame: string | undefined;
  return { status, frame: () => (frame ??= sseEvent('status', status)) };
}

export interface StreamWritesOptions {
  /** The hub's watches, by conversation id: an ended stream leaves its watch, and the last to leave removes it. */
  watches: Map<string, Watch>;
  /** The most bytes a stream may have written that its client has not taken; past it, its connection is cut. */
  maxUnsentBytes: number;
  now: () => number;
}

export function createStreamWrites({ watches, maxUnsentBytes, now }: StreamWritesOptions) {
  /** Writes a frame; false when the client has not taken what was written before. Past the cap, the stream is cut. */
  const write = (stream: Stream, frame: string | Uint8Array): boolean => {
    const ready = stream.sink.write(frame);
    stream.lastWriteAt = now();
    if (stream.sink.unsent <= maxUnsentBytes) return ready;
    end(stream);
    stream.sink.destroy();
    return false;
  };

  /** Takes the stream out of its watch, writes its last frame if there is room for it, and ends it. */
  function end(stream: Stream, last?: string) {
    if (stream.ended) return;
    stream.ended = true;
    const watch = watches.get(stream.subject.conversationId);
    if (watch !== undefined && watch.streams.delete(stream) && watch.streams.size === 0) {
      if (watch.timer !== null) clearTimeout(watch.timer);
      watches.delete(watch.conversationId);
    }
    if (last !== undefined && stream.sink.unsent + last.length <= maxUnsentBytes) stream.sink.write(last);
    stream.sink.end();
  }

  function deliverMessages(stream: Stream, messages: readonly MessageFrame[]) {
    for (const { sequence, frame } of messages) {
      if (sequence <= stream.cursor) continue;
      write(stream, frame);
      stream.cursor = sequence;
      if (stream.ended) return;
    }
  }

  function deliverStatus(stream: Stream, { status, frame }: StatusFrame) {
    // The panel keeps the newest status by `status_as_of`; a change is sent once, never an older reading.
    if (stream.ended || status.status === stream.status || status.status_as_of < stream.statusAsOf) return;
    write(stream, frame());
    stream.status = status.status;
    stream.statusAsOf = status.status_as_of;
  }

  return { write, end, deliverMessages, deliverStatus };
}

export type StreamWrites = ReturnType<typeof createStreamWrites>;
