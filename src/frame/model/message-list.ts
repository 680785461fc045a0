// The conversation as the panel shows it: confirmed messages from the relay and the visitor's own messages that are
// still on their way. Pure functions over immutable arrays, so signals see every change.
import type { MessageSender, WireMessage } from '../../shared/wire.ts';

export type Delivery = 'sending' | 'retrying' | 'sent' | 'failed';

export interface ChatMessage {
  /**
   * Stable across the message's life, for rendering and retry; a visitor's message goes out with it as its
   * Idempotency-Key, which every attempt to send it shares, so a retry never duplicates it.
   */
  key: string;
  /** The relay's id once known. */
  id: string | null;
  /** The conversation's order, once the relay has the message. */
  sequence: number | null;
  sender: MessageSender;
  authorName: string;
  text: string;
  createdAt: string;
  /** Only for the visitor's own messages. */
  delivery: Delivery | null;
}

export function fromWire(message: WireMessage): ChatMessage {
  return {
    key: `m-${message.id}`,
    id: message.id,
    sequence: message.sequence,
    sender: message.sender,
    authorName: message.author_name,
    text: message.text,
    createdAt: message.created_at,
    delivery: message.sender === 'visitor' ? 'sent' : null,
  };
}

export function updateMessage(list: readonly ChatMessage[], key: string, change: Partial<ChatMessage>): ChatMessage[] {
  return list.map((message) => (message.key === key ? { ...message, ...change } : message));
}

/** The visitor's message was accepted: it takes the relay's id, unless a poll already brought that id in. */
export function confirmSent(list: readonly ChatMessage[], key: string, sent: WireMessage): ChatMessage[] {
  if (list.some((message) => message.id === sent.id)) return list.filter((message) => message.key !== key);
  return updateMessage(list, key, {
    id: sent.id,
    sequence: sent.sequence,
    createdAt: sent.created_at,
    delivery: 'sent',
  });
}

/**
 * Adds messages from the relay (a read or the live stream) that are not shown yet, each before the first shown
 * message that comes after it in the conversation, so that two sources overlapping after a gap still show each message
 * once and in order; answers the list and the messages that were new. The live stream brings one message at a time:
 * each is looked up among the shown ones where they are, with no set of ids built per message, and the list is copied
 * only when something is new (the same array comes back otherwise, so signals see no change).
 */
export function mergeIncoming(
  list: ChatMessage[],
  incoming: readonly WireMessage[],
): { list: ChatMessage[]; added: ChatMessage[] } {
  let merged = list;
  const added: ChatMessage[] = [];
  for (const message of incoming) {
    if (merged.some((shown) => shown.id === message.id)) continue;
    if (merged === list) merged = [...list];
    const after = merged.findIndex((shown) => shown.sequence !== null && shown.sequence > message.sequence);
    const item = fromWire(message);
    merged.splice(after < 0 ? merged.length : after, 0, item);
    added.push(item);
  }
  return { list: merged, added };
}
