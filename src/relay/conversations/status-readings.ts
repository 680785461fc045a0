// The last status the relay read for each conversation, so that a panel's poll costs one upstream call (its messages)
// instead of two (its messages and the conversation's status). Panels poll every 1–15 s (poll-cadence.ts) and a
// conversation's status changes a few times in its life, so most status reads found nothing new: with this, the relay
// reads the status again when its reading is older than `maxAgeMs`, or when the messages show something that arrived
// after that reading (a reply is when an escalation or a hand-over to staff happens), or when the relay itself changed
// it (escalate, End chat: `forget`). A status change made silently upstream (staff resolve without a word) reaches
// the panel at most `maxAgeMs` late. Per instance and in memory: a stale reading costs only that delay, never a
// wrong answer to a rule (retired handles are checked on every request, in the shared store).
import type { ConversationDetail } from '../upstream/index.ts';

export interface StatusReading {
  status: ConversationDetail['status'];
  /** When the conversation last changed upstream (ms since the epoch): the resolved grace period counts from it. */
  updatedAt: number;
  /** The sequence of the newest message the relay had seen for this conversation when it took the reading. */
  newestSequence: number;
}

export interface StatusReadings {
  /** A reading taken less than `maxAgeMs` ago, or null. */
  recent(conversationId: string): StatusReading | null;
  remember(conversationId: string, reading: StatusReading): void;
  forget(conversationId: string): void;
}

/**
 * @example
 * const readings = createStatusReadings({ maxAgeMs: 10_000 });
 * readings.remember(id, { status: 'open', updatedAt, newestSequence: 2 });
 * readings.recent(id); // the reading, for 10 s
 * // …and the poll reads the status again if its messages go beyond it: stillCurrent(reading, newest)
 */
export function createStatusReadings({
  maxAgeMs,
  capacity = 20_000,
  now = Date.now,
}: {
  /** 0 turns reuse off: every poll reads the status. */
  maxAgeMs: number;
  /** The most conversations remembered; the oldest reading goes first. About 150 bytes each. */
  capacity?: number;
  now?: () => number;
}): StatusReadings {
  const readings = new Map<string, StatusReading & { takenAt: number }>();
  return {
    recent(conversationId) {
      const reading = readings.get(conversationId);
      if (reading === undefined) return null;
      if (now() - reading.takenAt >= maxAgeMs) {
        readings.delete(conversationId);
        return null;
      }
      return reading;
    },
    remember(conversationId, reading) {
      if (maxAgeMs <= 0) return;
      // Re-inserted, so that Map order is the order readings were taken and the first key is the oldest.
      readings.delete(conversationId);
      if (readings.size >= capacity) readings.delete(readings.keys().next().value!);
      readings.set(conversationId, { ...reading, takenAt: now() });
    },
    forget(conversationId) {
      readings.delete(conversationId);
    },
  };
}

/** Whether a reading still speaks for messages up to `newestSequence`: none arrived after it was taken. */
export const stillCurrent = (reading: StatusReading, newestSequence: number) => newestSequence <= reading.newestSequence;
