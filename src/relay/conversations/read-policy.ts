// The one policy for every call on a conversation. Every route that reads its content (the poll, the live stream's
// first read, its catch-up pages and its watch's later reads) reads through `read`; every route that writes to it
// upstream (a message, an escalation, the language) asks `admitWrite` first; End chat and the stream's answer before
// its first read ask `admit`. So a new route adds no rule of its own and skips none. The rules, in order:
// - expired: the handle's own expiry has passed;
// - retired: End chat (or an earlier refusal below) retired the handle, on any instance;
// - resolved past its grace: the practice resolved the conversation longer ago than the grace; the handle is retired
//   for good at that moment. The grace counts from when the relay first saw the resolution (resolutions.ts), never
//   from the service's `updated_at` of a later reading, which moves whenever the conversation is changed afterwards;
// - status: otherwise (open, escalated, or resolved within the grace) the content may be read; a resolved
//   conversation takes no write at all, so nothing the relay does upstream can change it after its resolution.
import type { ConversationReader, StatusReader } from './conversation-reader.ts';
import type { ResolutionStore } from './resolutions.ts';
import type { RevocationStore } from './revocations.ts';
import type { StatusReading } from './status-readings.ts';

/**
 * After the practice resolves a conversation, the visitor's panel has this long to show the last replies and the
 * "resolved" notice; then the handle reads nothing more, so a handle found later does not open the whole history.
 */
export const RESOLVED_READ_GRACE_MS = 15 * 60 * 1000;

/** The two codes a refused call answers with (the API's own codes, which the panel knows). */
export type ReadRefusal = 'session_expired' | 'conversation_resolved';

/** Who asks: the conversation, and when the handle that names it expires. */
export interface ReadSubject {
  conversationId: string;
  expiresAt: number;
}

type Read = Awaited<ReturnType<ConversationReader>>;
export type PolicedRead = ({ refused: null } & Read) | { refused: ReadRefusal };

export interface ReadPolicy {
  /**
   * Whether the handle may be used at all (expired, retired), without reading: a stream asks before it answers 200,
   * and End chat before it retires the handle.
   */
  admit(subject: ReadSubject): Promise<ReadRefusal | null>;
  /**
   * The content after `cursor`, or why not. Upstream failures are thrown as the reader throws them. `admitted`: the
   * request asked `admit` for this subject already (beside its address quota, routes/handle-admission.ts), so it is
   * not asked again.
   */
  read(
    subject: ReadSubject,
    cursor: number,
    options?: Parameters<ConversationReader>[2] & { admitted?: boolean },
  ): Promise<PolicedRead>;
  /**
   * Whether a write upstream may go ahead: admitted, and the conversation not resolved (within its grace or past it).
   * `statusAgeMs`: how old a status reading may be (0 reads it now); a write the service itself refuses in a resolved
   * conversation (a message, an escalation) may take a recent one, a write it would accept (the language) may not.
   * `admitted`: the request asked `admit` for this subject already (its first step, before reading its body), so it is
   * not asked again: with Redis that is a round trip per write.
   */
  admitWrite(subject: ReadSubject, options?: { statusAgeMs?: number; admitted?: boolean }): Promise<ReadRefusal | null>;
  /** Whether the handle's expiry has passed by `at` (a stream ends then, read or not). */
  expired(subject: ReadSubject, at?: number): boolean;
}

/**
 * @example
 * const policy = createReadPolicy({ read, readStatus, revocations, resolutions });
 * const answer = await policy.read(claims, cursor);
 * if (answer.refused !== null) throw new ApiError(answer.refused);
 */
export function createReadPolicy({
  read,
  readStatus,
  revocations,
  resolutions,
  resolvedReadGraceMs = RESOLVED_READ_GRACE_MS,
  now = Date.now,
}: {
  read: ConversationReader;
  readStatus: StatusReader;
  revocations: Pick<RevocationStore, 'isRevoked' | 'revoke'>;
  resolutions: ResolutionStore;
  resolvedReadGraceMs?: number;
  now?: () => number;
}): ReadPolicy {
  const expired = (subject: ReadSubject, at = now()) => at >= subject.expiresAt;
  const admit = async (subject: ReadSubject): Promise<ReadRefusal | null> =>
    expired(subject) || (await revocations.isRevoked(subject.conversationId)) ? 'session_expired' : null;

  /**
   * Whether a reading shows the conversation resolved longer ago than the grace, retiring the handle if so. The
   * resolution is dated by its first sighting on any instance; a service clock ahead of the relay's dates it no later
   * than now.
   */
  async function pastGrace(subject: ReadSubject, reading: StatusReading): Promise<boolean> {
    if (reading.status !== 'resolved') return false;
    const time = now();
    const resolvedAt = await resolutions.firstSeen(
      subject.conversationId,
      Math.min(reading.updatedAt, time),
      subject.expiresAt,
    );
    if (time - resolvedAt <= resolvedReadGraceMs) return false;
    await revocations.revoke(subject.conversationId, subject.expiresAt);
    return true;
  }

  return {
    admit,
    expired,
    async read(subject, cursor, options) {
      const refusal = options?.admitted === true ? null : await admit(subject);
      if (refusal !== null) return { refused: refusal };
      const answer = await read(subject.conversationId, cursor, options);
      if (await pastGrace(subject, answer.conversation)) return { refused: 'conversation_resolved' };
      return { refused: null, ...answer };
    },
    async admitWrite(subject, { statusAgeMs, admitted = false } = {}) {
      const refusal = admitted ? null : await admit(subject);
      if (refusal !== null) return refusal;
      const reading = await readStatus(
        subject.conversationId,
        statusAgeMs === undefined ? {} : { acceptAgeMs: statusAgeMs },
      );
      if (reading.status !== 'resolved') return null;
      // Within the grace the handle still reads (the panel shows the last replies); it writes nothing either way.
      await pastGrace(subject, reading);
      return 'conversation_resolved';
    },
  };
}
