// The one policy for reading a conversation's content. Every route that returns messages (the poll, the live stream's
// first read, its catch-up pages and its watch's later reads) reads through `read` below, so a new route adds no rule
// of its own and skips none. The rules, in order:
// - expired: the handle's own expiry has passed;
// - retired: End chat (or an earlier refusal below) retired the handle, on any instance;
// - resolved past its grace: the practice resolved the conversation longer ago than the grace; the handle is retired
//   for good at that moment, since `updated_at` moves whenever staff edit the conversation and must not open its
//   history again;
// - status: otherwise (open, escalated, or resolved within the grace) the content may be read.
import type { ConversationReader } from './conversation-reader.ts';
import type { RevocationStore } from './revocations.ts';

/**
 * After the practice resolves a conversation, the visitor's panel has this long to show the last replies and the
 * "resolved" notice; then the handle reads nothing more, so a handle found later does not open the whole history.
 */
export const RESOLVED_READ_GRACE_MS = 15 * 60 * 1000;

/** The two codes a refused read answers with (the API's own codes, which the panel knows). */
export type ReadRefusal = 'session_expired' | 'conversation_resolved';

/** Who asks: the conversation, and when the handle that names it expires. */
export interface ReadSubject {
  conversationId: string;
  expiresAt: number;
}

type Read = Awaited<ReturnType<ConversationReader>>;
export type PolicedRead = ({ refused: null } & Read) | { refused: ReadRefusal };

export interface ReadPolicy {
  /** Whether the handle may read at all (expired, retired), without reading: a stream asks before it answers 200. */
  admit(subject: ReadSubject): Promise<ReadRefusal | null>;
  /** The content after `cursor`, or why not. Upstream failures are thrown as the reader throws them. */
  read(subject: ReadSubject, cursor: number, options?: Parameters<ConversationReader>[2]): Promise<PolicedRead>;
  /** Whether the handle's expiry has passed by `at` (a stream ends then, read or not). */
  expired(subject: ReadSubject, at?: number): boolean;
}

/**
 * @example
 * const policy = createReadPolicy({ read: createConversationReader(upstream, readings), revocations });
 * const answer = await policy.read(claims, cursor);
 * if (answer.refused !== null) throw new ApiError(answer.refused);
 */
export function createReadPolicy({
  read,
  revocations,
  resolvedReadGraceMs = RESOLVED_READ_GRACE_MS,
  now = Date.now,
}: {
  read: ConversationReader;
  revocations: Pick<RevocationStore, 'isRevoked' | 'revoke'>;
  resolvedReadGraceMs?: number;
  now?: () => number;
}): ReadPolicy {
  const expired = (subject: ReadSubject, at = now()) => at >= subject.expiresAt;
  const admit = async (subject: ReadSubject): Promise<ReadRefusal | null> =>
    expired(subject) || (await revocations.isRevoked(subject.conversationId)) ? 'session_expired' : null;
  return {
    admit,
    expired,
    async read(subject, cursor, options) {
      const refusal = await admit(subject);
      if (refusal !== null) return { refused: refusal };
      const answer = await read(subject.conversationId, cursor, options);
      if (answer.conversation.status === 'resolved' && now() - answer.conversation.updatedAt > resolvedReadGraceMs) {
        await revocations.revoke(subject.conversationId, subject.expiresAt);
        return { refused: 'conversation_resolved' };
      }
      return { refused: null, ...answer };
    },
  };
}
