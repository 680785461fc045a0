// Every upstream response is parsed, not cast. Documented shapes follow service-interface.md; the record shapes
// follow the assumed contract in the contract's entry (index.ts). Objects strip unknown fields (tolerant to
// additions) but are strict on the types of the fields we use.
import { z } from 'zod';

const id = z.string().min(1);
const timestamp = z.string().min(1);
const count = z.number().int().nonnegative();

export const tokenResponseSchema = z.object({
  access_token: z.string().min(1),
  // expires_in is read leniently by the token manager (unit and sanity are not documented), so it is unknown here.
  expires_in: z.unknown().optional(),
  refresh_token: z.string().optional(),
  token_type: z.string().optional(),
  scope: z.string().optional(),
});
export type TokenResponse = z.infer<typeof tokenResponseSchema>;

export const webchatConfigurationSchema = z.object({
  id,
  practice: id,
  webchat_domains: z.array(z.object({ id: z.string(), domain: z.string() })),
  logo_signed_url: z.string(),
  webchat_icon_color: z.string(),
  webchat_icon_opacity: z.number().int(),
  google_tag_id: z.string(),
  is_active: z.boolean(),
  aimee_bot_name: z.string(),
});
export type WebchatConfiguration = z.infer<typeof webchatConfigurationSchema>;

/** The paginated list envelope around any item schema. */
export function page<T extends z.ZodType>(item: T) {
  return z.object({
    meta: z.object({ page: count, page_total: count, page_size: count, results_total: count }),
    links: z.object({ previous: z.string().nullable(), self: z.string(), next: z.string().nullable() }),
    results: z.array(item),
  });
}
export interface Page<T> {
  meta: { page: number; page_total: number; page_size: number; results_total: number };
  links: { previous: string | null; self: string; next: string | null };
  results: T[];
}

export const callSchema = z.object({
  id,
  practice: id,
  organization: id,
  direction: z.enum(['inbound', 'outbound']),
  status: z.enum(['answered', 'missed', 'voicemail']),
  started_at: timestamp,
  duration_seconds: z.number().nonnegative(),
  is_opportunity: z.boolean(),
});
export type Call = z.infer<typeof callSchema>;

export const conversationSchema = z.object({
  id,
  practice: id,
  channel: z.literal('webchat'),
  status: z.enum(['open', 'escalated', 'resolved']),
  mode: z.enum(['bot', 'agent']),
  subject: z.string(),
  // Optional: a list item without it parses, and a create found by a look-up without it is not adopted (create-once.ts).
  created_at: timestamp.optional(),
  updated_at: timestamp,
  // ASSUMED: the caller's reference given at the create, echoed back. Absent or null from a service that does not keep
  // it, which is then never proof that a conversation is the caller's.
  client_reference: z.string().nullish(),
});
export type Conversation = z.infer<typeof conversationSchema>;

export const conversationDetailSchema = conversationSchema.extend({
  message_stats: z.object({
    total: count,
    visitor: count,
    bot: count,
    agent: count,
    last_message_at: timestamp.nullable(),
  }),
});
export type ConversationDetail = z.infer<typeof conversationDetailSchema>;

export const messageSchema = z.object({
  id,
  conversation: id,
  sequence: z.number().int().positive(),
  sender: z.enum(['visitor', 'bot', 'agent']),
  author_name: z.string(),
  text: z.string(),
  created_at: timestamp,
});
export type Message = z.infer<typeof messageSchema>;

export const patientLinkSchema = z.object({
  id,
  patient: id,
  created_at: timestamp,
});
export type PatientLink = z.infer<typeof patientLinkSchema>;
