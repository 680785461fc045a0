// Every exchange the relay makes with the service: its method, its path template and its name on the metrics. The
// operations (operations.ts), the token request, the failure causes and the metrics all read this one table, so a
// path changes here and nowhere else. Templates carry `{placeholders}` that the HTTP layer fills with encoded values,
// and errors name the template, never the values.
import type { Method } from './upstream-http.ts';

interface Exchange {
  method: Method;
  path: string;
  /** The metrics label: a handful of fixed values, `other` for the exchanges the relay's routes do not make. */
  metric: string;
}

const CONVERSATION = '/api/conversations/{id}/';

export const EXCHANGES = {
  /** Documented: the password grant, form-encoded. */
  token: { method: 'POST', path: '/api/oauth/token/', metric: 'token' },
  /** Documented; that it is secured is ASSUMED. */
  configuration: { method: 'GET', path: '/api/conversations/webchat-configuration/', metric: 'configuration' },
  /** Documented. */
  listCalls: { method: 'GET', path: '/api/calls/', metric: 'other' },
  // ASSUMED from here on: the service names these operations, not their methods or paths.
  createConversation: { method: 'POST', path: '/api/conversations/', metric: 'create_conversation' },
  listConversations: { method: 'GET', path: '/api/conversations/', metric: 'list_conversations' },
  readConversation: { method: 'GET', path: CONVERSATION, metric: 'read_conversation' },
  updateConversation: { method: 'PATCH', path: CONVERSATION, metric: 'update_conversation' },
  sendMessage: { method: 'POST', path: `${CONVERSATION}messages/`, metric: 'send_message' },
  readMessages: { method: 'GET', path: `${CONVERSATION}messages/`, metric: 'read_messages' },
  escalate: { method: 'POST', path: `${CONVERSATION}escalate/`, metric: 'escalate' },
  agentMode: { method: 'POST', path: `${CONVERSATION}agent-mode/`, metric: 'agent_mode' },
  resolve: { method: 'POST', path: `${CONVERSATION}resolve/`, metric: 'resolve' },
  listPatients: { method: 'GET', path: `${CONVERSATION}patients/`, metric: 'other' },
  addPatient: { method: 'POST', path: `${CONVERSATION}patients/`, metric: 'other' },
  removePatient: { method: 'DELETE', path: `${CONVERSATION}patients/{patient}/`, metric: 'other' },
} as const satisfies Record<string, Exchange>;

export const TOKEN_PATH = EXCHANGES.token.path;

/** Documented: page_size accepts at most 100 for JSON responses. */
export const MAX_PAGE_SIZE = 100;

const METRICS = new Map<string, string>(
  Object.values(EXCHANGES).map((exchange) => [`${exchange.method} ${exchange.path}`, exchange.metric]),
);

/** The exchange's metrics label, or `other` for one the table does not name. */
export function operationOf(method: string, route: string): string {
  return METRICS.get(`${method} ${route}`) ?? 'other';
}
