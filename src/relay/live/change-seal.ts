// A conversation change as it crosses the Redis channel to the other instances: sealed, so that whoever listens to
// Redis (MONITOR, a subscriber of their own) learns no upstream id. One key for the channel, derived once from the
// relay's secret under this purpose's own name: a sealed change opens as nothing else, and nothing else as a change.
import { openText, purposeKey, sealText } from '../shared-state/sealing.ts';
import type { ConversationChange } from './event-bus.ts';

export const CHANGE_PURPOSE = 'conversation-change';
/** A patient's send or escalation, announced so that the instance holding the stream reads fast: a purpose apart. */
export const ACTIVITY_PURPOSE = 'conversation-activity';

export interface ChangeSealer {
  seal(change: ConversationChange): string;
  /** The change, or null for a text not sealed by this secret or not a change this relay knows. */
  open(sealed: string): ConversationChange | null;
  sealActivity(conversationId: string): string;
  /** The conversation id of an activity notice, or null for a text not sealed as one by this secret. */
  openActivity(sealed: string): string | null;
}

/** Sealed as `<kind>:<conversation id>`. */
const KIND_SEPARATOR = ':';

export function createChangeSealer(secret: Uint8Array): ChangeSealer {
  const key = purposeKey(secret, CHANGE_PURPOSE);
  const activityKey = purposeKey(secret, ACTIVITY_PURPOSE);
  return {
    sealActivity: (conversationId) => sealText(activityKey, conversationId),
    openActivity: (sealed) => openText(activityKey, sealed),
    seal: ({ kind, conversationId }) => sealText(key, `${kind}${KIND_SEPARATOR}${conversationId}`),
    open(sealed) {
      const opened = openText(key, sealed);
      if (opened === null) return null;
      const at = opened.indexOf(KIND_SEPARATOR);
      const kind = opened.slice(0, at);
      if (kind === 'messages' || kind === 'status') return { kind, conversationId: opened.slice(at + 1) };
      return null;
    },
  };
}
