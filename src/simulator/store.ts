import { opaqueId } from './random.ts';

// The assumed conversation, message and patient-link records (docs/upstream-contract.md).

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
  /** The patient's language, as the relay names it (assumed contract): the bot answers in it where it can. */
  language: string;
  created_at: string;
  updated_at: string;
  /** Assumed contract: the caller's reference given at the create, echoed back; absent when it gave none. */
  client_reference?: string;
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

/** Who signs the practice's messages in a conversation, fixed when it is created (from the seed of its practice). */
export interface ConversationAuthors {
  bot: string;
  teamMember: string;
}

/** What the service tells the relay about (an upstream event); never the text. */
export type ConversationChange = 'message_created' | 'status_changed';
export type ChangeListener = (conversationId: string, change: ConversationChange, at: string) => void;

export interface ConversationStore {
  readonly conversations: Map<string, ConversationRecord>;
  /** By conversation id, ascending sequence. */
  readonly messages: Map<string, MessageRecord[]>;
  /** By conversation id. */
  readonly patientLinks: Map<string, PatientLinkRecord[]>;
  /** By conversation id. */
  readonly authors: Map<string, ConversationAuthors>;
  /** Told of every new message and every status or mode change, after it is stored. */
  readonly onChange: ChangeListener;
}

export function createConversationStore(options: { onChange?: ChangeListener } = {}): ConversationStore {
  return {
    conversations: new Map(),
    messages: new Map(),
    patientLinks: new Map(),
    authors: new Map(),
    onChange: options.onChange ?? (() => {}),
  };
}

export function addConversation(
  store: ConversationStore,
  input: {
    practice: string;
    subject: string;
    language: string;
    authors: ConversationAuthors;
    at: string;
    clientReference?: string;
  },
): ConversationRecord {
  const record: ConversationRecord = {
    id: opaqueId('cnv_'),
    practice: input.practice,
    channel: 'webchat',
    status: 'open',
    mode: 'bot',
    subject: input.subject,
    language: input.language,
    created_at: input.at,
    updated_at: input.at,
    ...(input.clientReference === undefined ? {} : { client_reference: input.clientReference }),
  };
  store.conversations.set(record.id, record);
  store.messages.set(record.id, []);
  store.patientLinks.set(record.id, []);
  store.authors.set(record.id, input.authors);
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
  store.onChange(conversation.id, 'message_created', input.at);
  return message;
}

/** Sets status and/or mode; true (and one status_changed) only when something changed. */
export function changeState(
  store: ConversationStore,
  conversation: ConversationRecord,
  input: { status?: ConversationStatus; mode?: ConversationRecord['mode']; at: string },
): boolean {
  const status = input.status ?? conversation.status;
  const mode = input.mode ?? conversation.mode;
  if (status === conversation.status && mode === conversation.mode) return false;
  conversation.status = status;
  conversation.mode = mode;
  conversation.updated_at = input.at;
  store.onChange(conversation.id, 'status_changed', input.at);
  return true;
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
