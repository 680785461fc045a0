// The relay's browser-facing /v1 API: error codes and the shapes of its answers, shared by the relay (which builds
// them) and the frame (which parses them with src/shared/wire-parse.ts). Every call on a conversation carries its
// handle in `Authorization: Bearer HANDLE`, never in the URL, which proxies write into their logs.

/** Stable error codes; the UI maps codes to words, never messages. */
export const API_ERROR_CODES = [
  'bad_request',
  'unsupported_media_type',
  'payload_too_large',
  'not_found',
  'forbidden_origin',
  'inactive',
  'idempotency_conflict',
  'rate_limited',
  'session_expired',
  'conversation_resolved',
  'upstream_unavailable',
  'upstream_timeout',
  'internal',
] as const;
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

export interface ApiErrorBody {
  error: { code: ApiErrorCode; message: string };
}

export type MessageSender = 'visitor' | 'bot' | 'agent';
export type ConversationStatus = 'open' | 'escalated' | 'resolved';

export interface WireMessage {
  id: string;
  /** Increasing within a conversation; the cursor for "messages after". */
  sequence: number;
  sender: MessageSender;
  author_name: string;
  text: string;
  /** ISO 8601. */
  created_at: string;
}

/** POST /v1/conversations */
export interface CreatedConversation {
  conversation: string;
  /** ISO 8601: when the handle stops working. */
  expires_at: string;
}

/** POST /v1/conversation/messages (handle in Authorization) */
export interface SentMessage {
  message: WireMessage;
}

/** GET /v1/conversation/messages?after=N (handle in Authorization) */
export interface MessagesAfter {
  messages: WireMessage[];
  /** Pass back as `after` on the next read. */
  cursor: number;
  status: ConversationStatus;
  /**
   * When the conversation last changed upstream, as of `status` (ms since the epoch, the service's clock). Each relay
   * instance reuses the status it last read for a few seconds, so behind a load balancer consecutive polls may carry
   * readings of different ages: the panel keeps the status with the newest `status_as_of`, never an older one.
   */
  status_as_of: number;
}

/** POST /v1/conversation/escalate (handle in Authorization) */
export interface Escalated {
  status: ConversationStatus;
  /** As in MessagesAfter. */
  status_as_of: number;
}

/** The longest message a visitor may send, in characters; the relay enforces it and the composer shows it. */
export const MESSAGE_MAX_LENGTH = 2000;

/**
 * GET /v1/conversation/events?after=N (handle in Authorization): `text/event-stream`, one per panel. What it carries:
 * - `event: message`, `id: <sequence>`, `data: <WireMessage>`: each message after N, in order, once;
 * - `event: status`, `data: <StreamStatus>`: the status when the stream opens and each change after;
 * - `event: error`, `data: <ApiErrorBody>`, then the stream ends: a refusal found after the 200 (a handle retired
 *   or the conversation resolved, the upstream failing); the panel handles the code as for any call;
 * - `event: reconnect`, `data: <StreamReconnect>`, then the stream ends: its lifetime is over or the instance stops;
 *   the panel reads what it missed and opens a new stream (which a load balancer may send to another instance);
 * - a comment line (`: heartbeat`) every STREAM_HEARTBEAT_MS, so the panel (and a proxy) sees the stream alive.
 * The first bytes (a comment) are written at once, so a proxy that buffers is found out by the panel's timer.
 */
export const STREAM_HEARTBEAT_MS = 15_000;
/** No byte for this long, over two heartbeats: the stream is dead or buffered; the panel falls back to polling. */
export const STREAM_SILENCE_LIMIT_MS = 35_000;

export interface StreamStatus {
  status: ConversationStatus;
  /** As in MessagesAfter. */
  status_as_of: number;
}

export interface StreamReconnect {
  reason: 'lifetime' | 'shutdown';
}
