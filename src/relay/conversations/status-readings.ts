// The last status the relay read for each conversation, so that a panel's poll costs one upstream call (its messages)
// instead of two (its messages and the conversation's status). Panels poll every 1–15 s (poll-cadence.ts) and a
// conversation's status changes a few times in its life, so most status reads found nothing new: with this, the relay
// reads the status again when its reading is older than `maxAgeMs`, or when the messages show something that arrived
// after that reading (a reply is when an escalation or a hand-over to staff happens). When the relay itself changes
// the conversation (escalate) it keeps the service's answer as the reading. A change made silently upstream (staff
// resolve without a word) reaches the panel at most `maxAgeMs` late. Per instance and in memory: a stale reading costs
// only that delay, never a wrong answer to a rule (retired handles are checked on every request, in the shared store).
import type { ConversationDetail } from '../upstream/index.ts';

export interface StatusReading {
  status: ConversationDetail['status'];
  /** When the conversation last changed upstream (ms since the epoch): the resolved grace period counts from it. */
  updatedAt: number;
  /** The sequence of the newest message the relay had seen for this conversation when it took the reading. */
  newestSequence: number;
}

export interface StatusReadings {
  /**
   * A reading taken less than `maxAgeMs` ago, or null. A caller that learns of changes another way (a live watch
   * while the service's events arrive) may accept an older one with `acceptAgeMs`.
   */
  recent(conversationId: string, acceptAgeMs?: number): StatusReading | null;
  /** Keeps the reading, unless the one kept is still recent and newer by the service's `updatedAt`: a poll that read
   * the status before an escalation and finishes after it must not bring the old status back. */
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
  /** The most conversations remembered; the oldest reading goes first. Bounded because each reading stays in memory. */
  capacity?: number;
  now?: () => number;
}): StatusReadings {
  const readings = new Map<string, StatusReading & { takenAt: number }>();
  return {
    recent(conversationId, acceptAgeMs = maxAgeMs) {
      const reading = readings.get(conversationId);
      if (reading === undefined || maxAgeMs <= 0) return null;
      return now() - reading.takenAt < acceptAgeMs ? reading : null;
    },
    remember(conversationId, reading) {
      if (maxAgeMs <= 0) return;
      const kept = readings.get(conversationId);
      if (kept !== undefined && now() - kept.takenAt < maxAgeMs && reading.updatedAt < kept.updatedAt) return;
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
export const stillCurrent = (reading: StatusReading, newestSequence: number) =>
  newestSequence <= reading.newestSequence;
