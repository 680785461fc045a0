// Parsers for the relay's /v1 answers and live stream events, for the frame. Hand-written for the same reason as the
// configuration's: four small shapes, while zod/mini's parser machinery alone would take a large share of the frame's
// size budget (test/unit/bundles/budgets.ts).
// Each returns null for anything that is not exactly the shape (extra fields are dropped, never trusted).
import {
  API_ERROR_CODES,
  type ApiErrorCode,
  type ConversationStatus,
  type CreatedConversation,
  type Escalated,
  type MessagesAfter,
  type StreamReconnect,
  type StreamStatus,
  type WireMessage,
} from './wire.ts';

type Fields = Record<string, unknown>;
const record = (value: unknown): Fields | null =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : null;
const isString = (value: unknown): value is string => typeof value === 'string';
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;
const STATUSES: readonly unknown[] = ['open', 'escalated', 'resolved'] satisfies ConversationStatus[];
const SENDERS: readonly unknown[] = ['visitor', 'bot', 'agent'];

export function parseWireMessage(value: unknown): WireMessage | null {
  const m = record(value);
  if (!m || !isString(m.id) || !isCount(m.sequence) || !SENDERS.includes(m.sender)) return null;
  if (!isString(m.author_name) || !isString(m.text) || !isString(m.created_at)) return null;
  return {
    id: m.id,
    sequence: m.sequence,
    sender: m.sender as WireMessage['sender'],
    author_name: m.author_name,
    text: m.text,
    created_at: m.created_at,
  };
}

export function parseCreatedConversation(value: unknown): CreatedConversation | null {
  const c = record(value);
  return c && isString(c.conversation) && c.conversation !== '' && isString(c.expires_at)
    ? { conversation: c.conversation, expires_at: c.expires_at }
    : null;
}

export function parseSentMessage(value: unknown): WireMessage | null {
  return parseWireMessage(record(value)?.message);
}

export function parseMessagesAfter(value: unknown): MessagesAfter | null {
  const a = record(value);
  if (
    !a ||
    !Array.isArray(a.messages) ||
    !isCount(a.cursor) ||
    !STATUSES.includes(a.status) ||
    !isCount(a.status_as_of)
  )
    return null;
  const messages = a.messages.map(parseWireMessage);
  if (messages.some((message) => message === null)) return null;
  return {
    messages: messages as WireMessage[],
    cursor: a.cursor,
    status: a.status as ConversationStatus,
    status_as_of: a.status_as_of,
  };
}

export function parseEscalated(value: unknown): Escalated | null {
  const e = record(value);
  return e && STATUSES.includes(e.status) && isCount(e.status_as_of)
    ? { status: e.status as ConversationStatus, status_as_of: e.status_as_of }
    : null;
}

/** A live stream's `status` event: the same shape as an escalation's answer. */
export const parseStreamStatus: (value: unknown) => StreamStatus | null = parseEscalated;

/** A live stream's `reconnect` event. */
export function parseStreamReconnect(value: unknown): StreamReconnect | null {
  const reason = record(value)?.reason;
  return reason === 'lifetime' || reason === 'shutdown' ? { reason } : null;
}

/** The code of a `{"error": {"code"}}` body, if it is one of ours. */
export function parseApiErrorCode(value: unknown): ApiErrorCode | null {
  const code = record(record(value)?.error)?.code;
  return (API_ERROR_CODES as readonly unknown[]).includes(code) ? (code as ApiErrorCode) : null;
}
