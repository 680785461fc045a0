// Names for the upstream exchanges, for metrics: one per path template and method of the contract, so a label takes
// a handful of fixed values (never an id; the templates carry none).
import { TOKEN_PATH } from './token-path.ts';

const OPERATIONS: Record<string, string> = {
  [`POST ${TOKEN_PATH}`]: 'token',
  'GET /api/conversations/webchat-configuration/': 'configuration',
  'POST /api/conversations/': 'create_conversation',
  'GET /api/conversations/{id}/': 'read_conversation',
  'PATCH /api/conversations/{id}/': 'update_conversation',
  'POST /api/conversations/{id}/messages/': 'send_message',
  'GET /api/conversations/{id}/messages/': 'read_messages',
  'POST /api/conversations/{id}/escalate/': 'escalate',
  'POST /api/conversations/{id}/agent-mode/': 'agent_mode',
  'POST /api/conversations/{id}/resolve/': 'resolve',
};

/** The operation's name, or `other` for an exchange the relay's routes do not make (lists, patients). */
export function operationOf(method: string, route: string): string {
  return OPERATIONS[`${method} ${route}`] ?? 'other';
}
