// The conversation calls of the /v1 API. The browser holds only a sealed handle; the upstream conversation id, the
// practice and the token stay here. Message text passes through to upstream and back and is never logged.
// The handle travels in `Authorization: Bearer HANDLE` (bearer-handle.ts), never in a path or a query: proxies and
// load balancers write URLs into their access and error logs, and a handle reads a patient's conversation.
// Each group of routes is a Hono app in its own file, built from the dependencies it uses; this one mounts them
// together, with the calls they share, in the order they were declared.
import { Hono } from 'hono';
import type { RelayEnv } from '../http/env.ts';
import { createConversationCalls } from './conversation-calls.ts';
import type { ConversationDependencies } from './conversation-dependencies.ts';
import { creationRoutes } from './conversation-create.ts';
import { endAndEscalateRoutes } from './conversation-end-escalate.ts';
import { eventRoutes } from './conversation-events.ts';
import { languageRoutes } from './conversation-language.ts';
import { messageRoutes } from './conversation-messages.ts';

// Mounted at /v1: creating is `/conversations`; every call on a conversation is `/conversation/...`, its handle in
// the Authorization header. The old `/conversations/HANDLE/...` paths are no route at all (404).
export function conversationRoutes(dependencies: ConversationDependencies) {
  // One set of calls for every group: the same claims, read policy, deadline and message quota.
  const calls = createConversationCalls(dependencies);
  return new Hono<RelayEnv>()
    .route('/', creationRoutes(dependencies, calls))
    .route('/', messageRoutes(dependencies, calls))
    .route('/', endAndEscalateRoutes(dependencies, calls))
    .route('/', eventRoutes(dependencies, calls))
    .route('/', languageRoutes(dependencies, calls));
}
