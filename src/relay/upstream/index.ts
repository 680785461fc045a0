// The public face of the upstream client for the rest of the relay.
export { createUpstreamClient, type UpstreamClient, type UpstreamClientOptions } from './client.ts';
export type { CallQuery, ConversationFilters, MessagesAfter, UpstreamContract } from './contract/index.ts';
export { UpstreamError, type UpstreamErrorCode } from './errors.ts';
export { upstreamCause } from './failure-cause.ts';
export type { TokenState } from './token-manager.ts';
export type {
  Call,
  Conversation,
  ConversationDetail,
  Message,
  Page,
  PatientLink,
  WebchatConfiguration,
} from './contract/index.ts';
export type { FetchLike } from './transport.ts';
export type { Cancellation } from './cancellation.ts';
