// THE upstream contract: everything the relay assumes about the service, and the one place to change when the real
// service's conversation API is published. Nothing outside this folder names an upstream path, a method, a payload
// field or the event format; the rest of the relay imports them from here.
//
// Documented by service-interface.md: the token request (a form-encoded password grant), Bearer use, 401 → new
// token, 403, the paginated list envelope, GET /api/calls/ and the webchat configuration endpoint. ASSUMED, and
// implemented exactly so by the simulator (src/simulator, which imports nothing from here: it is the other side of
// the wire): the conversation operations' methods, paths, bodies and answers, the record fields, the configuration
// endpoint being secured, the patient's `language` field, `client_reference`, and the upstream events with their
// signature.
//
//   exchanges.ts   each exchange's method and path template (and its metrics name); the token path
//   schemas.ts     the answers' shapes, parsed with zod
//   queries.ts     the list endpoints' query strings
//   pagination.ts  walking a list by links.next
//   operations.ts  the operations: what each sends, which exchange, which answer; the `language` field
//   events.ts      the events the service posts to the relay, and their signature
//   upstream-http.ts  what the operations ask of the HTTP layer (which implements it, in ../http.ts)
export { EXCHANGES, MAX_PAGE_SIZE, TOKEN_PATH, operationOf } from './exchanges.ts';
export {
  UPSTREAM_EVENT_MAX_AGE_SECONDS,
  UPSTREAM_EVENT_MAX_BYTES,
  UPSTREAM_EVENTS_PATH,
  UPSTREAM_SIGNATURE_HEADER,
  type UpstreamEvent,
  changeKindOf,
  signEvent,
  signatureIsValid,
  upstreamEventSchema,
} from './events.ts';
export { type MessagesAfter, type UpstreamContract, createContract } from './operations.ts';
export { DEFAULT_MAX_PAGES, type WalkOptions, collectAll, walkPages } from './pagination.ts';
export type { CallQuery, ConversationFilters, PageQuery } from './queries.ts';
export type { Method, Query, QueryValue, RequestOptions, UpstreamHttp } from './upstream-http.ts';
export {
  type Call,
  type Conversation,
  type ConversationDetail,
  type Message,
  type Page,
  type PatientLink,
  type TokenResponse,
  type WebchatConfiguration,
  tokenResponseSchema,
} from './schemas.ts';
