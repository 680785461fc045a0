// The service's records as the browser-facing API spells them (src/shared/wire.ts).
import type { WireMessage } from '../../shared/wire.ts';
import type { Message } from '../upstream/index.ts';

/** A service timestamp that does not parse counts as the oldest news, so it never hides a status the panel has. */
export const asOf = (updatedAt: number) => (Number.isFinite(updatedAt) && updatedAt > 0 ? updatedAt : 0);

export function toWireMessage(message: Message): WireMessage {
  return {
    id: message.id,
    sequence: message.sequence,
    sender: message.sender,
    author_name: message.author_name,
    text: message.text,
    created_at: message.created_at,
  };
}
