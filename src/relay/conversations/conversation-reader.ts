// A conversation's messages after a cursor, and its status, read as cheaply as the relay can: the status is read with
// the messages only when the last reading is old, or after them when they show a message newer than the reading;
// otherwise (or while the service announces status changes
// with events) the reading itself serves. Most reads find nothing new, so most cost one upstream call. Shared by the
// panel's polls and the live stream's watches, so both keep one set of readings.
import type { UpstreamClient } from '../upstream/index.ts';
import { stillCurrent, type StatusReading, type StatusReadings } from './status-readings.ts';

export type ConversationReader = (
  conversationId: string,
  cursor: number,
  options?: {
    /** How old a status reading may be and still serve (StatusReadings.recent); the readings' own limit by default. */
    acceptStatusAgeMs?: number;
    /**
     * The service announces status changes with events, which drop the reading: a reading young enough to serve
     * serves whatever messages the page shows, instead of being read again after a new one.
     */
    statusChangesAnnounced?: boolean;
    /** The most messages read (the upstream's own page size, at most 100, by default). */
    pageSize?: number;
  },
) => Promise<{
  page: Awaited<ReturnType<UpstreamClient['listMessagesAfter']>>;
  conversation: StatusReading;
}>;

/**
 * A conversation's status alone, for a call that writes rather than reads: a reading younger than `acceptAgeMs` serves
 * (the readings' own limit by default; 0 reads it now).
 */
export type StatusReader = (conversationId: string, options?: { acceptAgeMs?: number }) => Promise<StatusReading>;

/** Reads the status upstream and keeps it as the latest reading. */
function createStatusRead(upstream: Pick<UpstreamClient, 'getConversation'>, statusReadings: StatusReadings) {
  return async (conversationId: string, newestSequence: number): Promise<StatusReading> => {
    const detail = await upstream.getConversation(conversationId);
    const reading: StatusReading = { status: detail.status, updatedAt: Date.parse(detail.updated_at), newestSequence };
    statusReadings.remember(conversationId, reading);
    return reading;
  };
}

export function createStatusReader(
  upstream: Pick<UpstreamClient, 'getConversation'>,
  statusReadings: StatusReadings,
): StatusReader {
  const readStatus = createStatusRead(upstream, statusReadings);
  return async (conversationId, { acceptAgeMs } = {}) => {
    const recent = statusReadings.recent(conversationId, acceptAgeMs);
    if (recent !== null) return recent;
    // Read alone, the status vouches for no message the relay has not seen: it keeps the last reading's sequence.
    return readStatus(conversationId, statusReadings.recent(conversationId)?.newestSequence ?? 0);
  };
}

export function createConversationReader(
  upstream: Pick<UpstreamClient, 'listMessagesAfter' | 'getConversation'>,
  statusReadings: StatusReadings,
): ConversationReader {
  const readStatus = createStatusRead(upstream, statusReadings);
  return async (conversationId, cursor, { acceptStatusAgeMs, statusChangesAnnounced = false, pageSize } = {}) => {
    const size = pageSize === undefined ? {} : { pageSize };
    const recent = statusReadings.recent(conversationId, acceptStatusAgeMs);
    if (recent === null) {
      // Read side by side, the status may predate a message on the page; it vouches only for what the visitor had
      // already seen (the cursor), so the next read that brings anything reads it again.
      const [page, conversation] = await Promise.all([
        upstream.listMessagesAfter(conversationId, cursor, size),
        readStatus(conversationId, cursor),
      ]);
      return { page, conversation };
    }
    const page = await upstream.listMessagesAfter(conversationId, cursor, size);
    // Read after the page, the status is at least as new as every message on it.
    const newest = page.messages.at(-1)?.sequence ?? cursor;
    const current = statusChangesAnnounced || stillCurrent(recent, newest);
    return { page, conversation: current ? recent : await readStatus(conversationId, newest) };
  };
}
