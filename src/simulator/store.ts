import { opaqueId } from './random.ts';

// The assumed conversation, message and patient-link records (README, "The upstream contract").

export const CONVERSATION_STATUSES = ['open', 'escalated', 'resolved'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];
export type Sender = 'visitor' | 'bot' | 'agent';

export interface ConversationRecord {
  id: string;
  practice: string;
  channel: 'webchat';
  status: ConversationStatus;
  mode: 'bot' | 'agent';
  subject: string;
  created_at: string;
  updated_at: string;
}

export interface MessageStats {
  total: number;
  visitor: number;
  bot: number;
  agent: number;
  last_message_at: string | null;
}

export type ConversationDetail = ConversationRecord & { message_stats: MessageStats };

export interface MessageRecord {
  id: string;
  conversation: string;
  sequence: number;
  sender: Sender;
  author_name: string;
  text: string;
  created_at: string;
}

export interface PatientLinkRecord {
  id: string;
  patient: string;
  created_at: string;
}

export interface ConversationStore {
  readonly conversations: Map<string, ConversationRecord>;
  /** By conversation id, ascending sequence. */
  readonly messages: Map<string, MessageRecord[]>;
  /** By conversation id. */
  readonly patientLinks: Map<string, PatientLinkRecord[]>;
  /** Bot display name per conversation, fixed when it is created. */
  readonly botNames: Map<string, string>;
}

export function createConversationStore(): ConversationStore {
  return { conversations: new Map(), messages: new Map(), patientLinks: new Map(), botNames: new Map() };
}

export function addConversation(
  store: ConversationStore,
  input: { practice: string; subject: string; botName: string; at: string },
): ConversationRecord {
  const record: ConversationRecord = {
    id: opaqueId('cnv_'),
    practice: input.practice,
    channel: 'webchat',
    status: 'open',
    mode: 'bot',
    subject: input.subject,
    created_at: input.at,
    updated_at: input.at,
  };
  store.conversations.set(record.id, record);
  store.messages.set(record.id, []);
  store.patientLinks.set(record.id, []);
  store.botNames.set(record.id, input.botName);
  return record;
}

export function addMessage(
  store: ConversationStore,
  conversation: ConversationRecord,
  input: { sender: Sender; authorName: string; text: string; at: string },
): MessageRecord {
  const list = store.messages.get(conversation.id) ?? [];
  const message: MessageRecord = {
    id: opaqueId('msg_'),
    conversation: conversation.id,
    sequence: list.length + 1,
    sender: input.sender,
    author_name: input.authorName,
    text: input.text,
    created_at: input.at,
  };
  list.push(message);
  store.messages.set(conversation.id, list);
  conversation.updated_at = input.at;
  return message;
}

export function detail(store: ConversationStore, conversation: ConversationRecord): ConversationDetail {
  const messages = store.messages.get(conversation.id) ?? [];
  const count = (sender: Sender) => messages.filter((m) => m.sender === sender).length;
  return {
    ...conversation,
    message_stats: {
      total: messages.length,
      visitor: count('visitor'),
      bot: count('bot'),
      agent: count('agent'),
      last_message_at: messages.at(-1)?.created_at ?? null,
    },
  };
}
