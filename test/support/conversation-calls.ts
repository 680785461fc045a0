// Calls on a conversation as the panel makes them (src/frame/transport.ts), for tests and benches that talk to a
// relay: the handle travels in the Authorization header, never in the URL.
export const MESSAGES = '/v1/conversation/messages';
export const ESCALATE = '/v1/conversation/escalate';
/** DELETE: End chat. */
export const CONVERSATION = '/v1/conversation';

/** The header that carries a conversation's handle. */
export const bearer = (handle: string): { Authorization: string } => ({ Authorization: `Bearer ${handle}` });
