// A new stream's catch-up: the history after its cursor (a panel coming back after a gap), read with reads of its own,
// a page at a time and only as fast as its client takes it, before the conversation's shared watch serves it.
import type { ReadPolicy } from '../conversations/read-policy.ts';
import { toWireMessage } from '../conversations/wire-message.ts';
import { MAX_BACKOFF_MS } from './cadence.ts';
import type { ReadScheduler } from './read-scheduler.ts';
import { sseEvent } from './sse.ts';
import type { Stream } from './live-records.ts';
import { refusalEvent, statusFrame, statusOf, type StreamWrites } from './stream-writes.ts';

/**
 * Messages per catch-up read: a stream whose client stops reading holds at most one such page, and a reconnecting
 * panel's gap is seldom longer. Upstream pages hold at most 100; a page of 100 long messages is over a megabyte.
 */
export const CATCH_UP_PAGE_SIZE = 10;
/** A catch-up read that failed is tried again after this, doubled per failure (up to the watch's longest backoff). */
const CATCH_UP_RETRY_MS = 1000;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export interface CatchUpOptions {
  policy: ReadPolicy;
  scheduler: ReadScheduler;
  writes: StreamWrites;
  /** Reads the conversation's watch now, if there is one: how another tab's stream learns of a refusal. */
  wake: (conversationId: string) => void;
}

export function createCatchUp({ policy, scheduler, writes, wake }: CatchUpOptions) {
  const { write, end, deliverStatus } = writes;

  /**
   * The history after the stream's cursor, CATCH_UP_PAGE_SIZE messages per read, each message written
   * only once the client has taken the ones before: a client that stops reading holds one page, not the history.
   */
  return async function catchUp(stream: Stream) {
    let failures = 0;
    while (!stream.ended) {
      let answer: Awaited<ReturnType<ReadPolicy['read']>>;
      try {
        answer = await scheduler.run(() =>
          policy.read(stream.subject, stream.cursor, { pageSize: CATCH_UP_PAGE_SIZE }),
        );
      } catch {
        // The stream stays open (its heartbeats go on) and tries again; the panel also reads what it missed after a gap.
        failures += 1;
        await pause(Math.min(MAX_BACKOFF_MS, CATCH_UP_RETRY_MS * 2 ** (failures - 1)));
        continue;
      }
      failures = 0;
      if (stream.ended) return;
      if (answer.refused !== null) {
        end(stream, refusalEvent(answer.refused));
        // Another tab's stream of the conversation learns it at its watch's next read: make that now.
        wake(stream.subject.conversationId);
        return;
      }
      for (const message of answer.page.messages.map(toWireMessage)) {
        if (message.sequence <= stream.cursor) continue;
        const ready = write(stream, sseEvent('message', message, message.sequence));
        stream.cursor = message.sequence;
        if (!ready) await stream.sink.drained();
        if (stream.ended) return;
      }
      deliverStatus(stream, statusFrame(statusOf(answer.conversation)));
      if (!answer.page.hasMore) {
        stream.catchingUp = false;
        return;
      }
      await stream.sink.drained();
    }
  };
}
