// The conversation calls of the /v1 API. The browser holds only a sealed handle; the upstream conversation id, the
// practice and the token stay here. Message text passes through to upstream and back and is never logged.
// The handle travels in `Authorization: Bearer HANDLE` (bearer-handle.ts), never in a path or a query: proxies and
// load balancers write URLs into their access and error logs, and a handle reads a patient's conversation.
// Each group of routes has its file; this one puts them together, in one Hono app, in the order they were declared.
import { Hono } from 'hono';
import type { RelayEnv } from '../http/env.ts';
import { type ConversationRouteOptions, createConversationCalls } from './conversation-calls.ts';
import { addCreateRoute } from './conversation-create.ts';
import { addEndAndEscalateRoutes } from './conversation-end-escalate.ts';
import { addEventsRoute } from './conversation-events.ts';
import { addLanguageRoute } from './conversation-language.ts';
import { addMessageRoutes } from './conversation-messages.ts';

// Mounted at /v1: creating is `/conversations`; every call on a conversation is `/conversation/...`, its handle in
// the Authorization header. The old `/conversations/HANDLE/...` paths are no route at all (404).
export function conversationRoutes(options: ConversationRouteOptions) {
  const calls = createConversationCalls(options);
  const app = new Hono<RelayEnv>();
  addCreateRoute(app, options, calls);
  addMessageRoutes(app, options, calls);
  addEndAndEscalateRoutes(app, options, calls);
  addEventsRoute(app, options, calls);
  addLanguageRoute(app, options, calls);
  return app;
}
