// What the relay remembers of a sent message for 24 hours, to answer a retry with the same result: everything but the
// text. A retry carries the same body (its hash matched), so the text comes back from the retry itself.
import { z } from 'zod';
import type { Message } from '../upstream/index.ts';

export const sentRecordSchema = z.object({
  id: z.string(),
  conversation: z.string(),
  sequence: z.number().int().positive(),
  sender: z.enum(['visitor', 'bot', 'agent']),
  author_name: z.string(),
  created_at: z.string(),
});
export type SentRecord = z.infer<typeof sentRecordSchema>;

// Field by field rather than with rest and spread, which copy through the generic (slow) path on every send; both
// objects are schema outputs (zod drops unknown keys), so these are all their fields, in the same order.
export function withoutText({ id, conversation, sequence, sender, author_name, created_at }: Message): SentRecord {
  return { id, conversation, sequence, sender, author_name, created_at };
}

export function withText(
  { id, conversation, sequence, sender, author_name, created_at }: SentRecord,
  text: string,
): Message {
  return { id, conversation, sequence, sender, author_name, created_at, text };
}
