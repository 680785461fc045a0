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

export function withoutText({ text: _text, ...record }: Message): SentRecord {
  return record;
}

export function withText(record: SentRecord, text: string): Message {
  return { ...record, text };
}
