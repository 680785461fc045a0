// THE upstream contract, in one module, so that an integrator can adapt the relay to the real service here.
// Documented by service-interface.md: the token request (token-manager.ts), GET /api/calls/, the webchat
// configuration endpoint and the paginated envelope. Everything else — the conversation operations' paths,
// bodies and answers, the record fields, the configuration endpoint being secured — is ASSUMED, exactly as
// README.md "The upstream contract" → "Assumed" describes, and the simulator implements that.
// Ids are opaque strings from the API; paths are templates whose `{placeholders}` the HTTP layer fills with
// encodeURIComponent'ed values, and errors name the template only.
import { z } from 'zod';
import type { Query, UpstreamHttp } from './http.ts';
import { walkPages, collectAll } from './pages.ts';
import {
  callSchema,
  conversationDetailSchema,
  conversationSchema,
  messageSchema,
  page,
  patientLinkSchema,
  webchatConfigurationSchema,
  type Call,
  type Conversation,
  type ConversationDetail,
  type Message,
  type Page,
  type PatientLink,
  type WebchatConfiguration,
} from './schemas.ts';

/** Documented: page_size accepts at most 100 for JSON responses. */
export const MAX_PAGE_SIZE = 100;

export interface PageQuery {
  page?: number;
  pageSize?: number;
}

export interface CallQuery extends PageQuery {
  practice?: string;
  practiceIn?: readonly string[];
  status?: Call['status'];
  startedAtGte?: string;
  startedAtLte?: string;
  ordering?: 'started_at' | '-started_at';
}

export interface ConversationFilters extends PageQuery {
  practice?: string;
  practiceIn?: readonly string[];
  status?: Conversation['status'];
  statusIn?: readonly Conversation['status'][];
  /** Text search over message content (case-insensitive). Goes in the query string, never in an error message. */
  search?: string;
  createdAtGte?: string;
  createdAtLte?: string;
  ordering?: 'created_at' | '-created_at';
  /** ASSUMED: the conversations created with this `client_reference` (see createConversation). */
  clientReference?: string;
}

export interface MessagesAfter {
  /** Ascending by sequence. */
  messages: Message[];
  /** More messages exist after the last one returned: ask again with its sequence. */
  hasMore: boolean;
}

export interface UpstreamContract {
  getWebchatConfiguration(clientId: string): Promise<WebchatConfiguration>;
  listCalls(query?: CallQuery): Promise<Page<Call>>;
  walkCalls(query?: CallQuery): AsyncGenerator<Call, void, undefined>;
  /**
   * `language`: the patient's language (assumed: "the patient's language" below).
   * `clientReference` is ASSUMED: an opaque value of the caller's (at most 100 characters) that the service keeps with
   * the conversation and filters the list by (`client_reference`), so that a create whose answer was lost can be
   * found again instead of created twice, which would leave an empty conversation with the practice.
   */
  createConversation(input: {
    practice: string;
    subject?: string;
    language?: string;
    clientReference?: string;
  }): Promise<ConversationDetail>;
  getConversation(id: string): Promise<ConversationDetail>;
  listConversations(filters?: ConversationFilters): Promise<Page<Conversation>>;
  walkConversations(filters?: ConversationFilters): AsyncGenerator<Conversation, void, undefined>;
  /** `language`: the patient switched languages (assumed: "the patient's language" below). */
  updateConversation(id: string, changes: { subject?: string; language?: string }): Promise<ConversationDetail>;
  /** `signal` cuts the send (the relay bounds how long a send may run, so a retry knows when it is over). */
  sendMessage(id: string, text: string, options?: { signal?: AbortSignal }): Promise<Message>;
  listMessagesAfter(id: string, afterSequence: number, options?: { pageSize?: number }): Promise<MessagesAfter>;
  switchToAgentMode(id: string): Promise<ConversationDetail>;
  escalate(id: string): Promise<ConversationDetail>;
  resolve(id: string): Promise<ConversationDetail>;
  listPatients(id: string): Promise<PatientLink[]>;
  addPatient(id: string, patient: string): Promise<PatientLink>;
  removePatient(id: string, patient: string): Promise<void>;
}

const callPage = page(callSchema);
const conversationPage = page(conversationSchema);
const messagePage = page(messageSchema);
const noContent = z.unknown();

const CONVERSATION = '/api/conversations/{id}/';
const list = (values: readonly string[] | undefined) => (values === undefined ? undefined : values.join(','));
const pageSize = (size: number | undefined) =>
  size === undefined ? undefined : Math.min(Math.max(Math.trunc(size), 1), MAX_PAGE_SIZE);

function callQuery(q: CallQuery): Query {
  return {
    page: q.page,
    page_size: pageSize(q.pageSize),
    practice: q.practice,
    practice__in: list(q.practiceIn),
    status: q.status,
    started_at__gte: q.startedAtGte,
    started_at__lte: q.startedAtLte,
    ordering: q.ordering,
  };
}

function conversationQuery(q: ConversationFilters): Query {
  return {
    page: q.page,
    page_size: pageSize(q.pageSize),
    practice: q.practice,
    practice__in: list(q.practiceIn),
    status: q.status,
    status__in: list(q.statusIn),
    search: q.search,
    created_at__gte: q.createdAtGte,
    created_at__lte: q.createdAtLte,
    ordering: q.ordering,
    client_reference: q.clientReference,
  };
}

/** The fields that have a value: an absent change is not sent as `null`. */
const defined = (fields: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined));

// ---------------------------------------------------------------------------------------------------------------------
// ASSUMED: the patient's language. A conversation record has a `language` field, a BCP 47 tag as the widget names its
// languages (`en`, `es`, `zh-Hant`, `pt`, …), so that the assistant and the team answer in it. The relay sends it
// when it creates the conversation (`{"practice", "channel": "webchat", "language"}`) and again when the patient
// switches languages (`PATCH /api/conversations/{id}/` `{"language"}`). A service that ignores the field still works;
// it answers in its own language.
// ---------------------------------------------------------------------------------------------------------------------

export function createContract(http: UpstreamHttp): UpstreamContract {
  const detail = (method: 'GET' | 'POST' | 'PATCH', path: string, id: string, json?: unknown) =>
    http.request(method, path, {
      schema: conversationDetailSchema,
      params: { id },
      ...(json === undefined ? {} : { json }),
    });

  return {
    getWebchatConfiguration: (clientId) =>
      http.request('GET', '/api/conversations/webchat-configuration/', {
        schema: webchatConfigurationSchema,
        query: { client_id: clientId, format: 'json' },
      }),

    listCalls: (query = {}) => http.request('GET', '/api/calls/', { schema: callPage, query: callQuery(query) }),
    walkCalls: (query = {}) => walkPages(http, '/api/calls/', callQuery({ ...query, page: undefined }), callSchema),

    createConversation: ({ practice, subject, language, clientReference }) =>
      http.request('POST', '/api/conversations/', {
        schema: conversationDetailSchema,
        json: { practice, channel: 'webchat', ...defined({ subject, language, client_reference: clientReference }) },
      }),
    getConversation: (id) => detail('GET', CONVERSATION, id),
    listConversations: (filters = {}) =>
      http.request('GET', '/api/conversations/', { schema: conversationPage, query: conversationQuery(filters) }),
    walkConversations: (filters = {}) =>
      walkPages(http, '/api/conversations/', conversationQuery({ ...filters, page: undefined }), conversationSchema),
    updateConversation: (id, { subject, language }) =>
      detail('PATCH', CONVERSATION, id, defined({ subject, language })),

    sendMessage: (id, text, { signal } = {}) =>
      http.request('POST', `${CONVERSATION}messages/`, {
        schema: messageSchema,
        params: { id },
        json: { text, sender: 'visitor' },
        ...(signal === undefined ? {} : { signal }),
      }),
    async listMessagesAfter(id, afterSequence, options = {}) {
      const after = Number.isSafeInteger(afterSequence) && afterSequence > 0 ? afterSequence : 0;
      const result = await http.request('GET', `${CONVERSATION}messages/`, {
        schema: messagePage,
        params: { id },
        query: { after, page_size: pageSize(options.pageSize ?? MAX_PAGE_SIZE) },
      });
      return { messages: result.results, hasMore: result.links.next !== null };
    },

    switchToAgentMode: (id) => detail('POST', `${CONVERSATION}agent-mode/`, id),
    escalate: (id) => detail('POST', `${CONVERSATION}escalate/`, id),
    resolve: (id) => detail('POST', `${CONVERSATION}resolve/`, id),

    listPatients: (id) =>
      collectAll(
        walkPages(http, `${CONVERSATION}patients/`, { page_size: MAX_PAGE_SIZE }, patientLinkSchema, {
          params: { id },
        }),
      ),
    addPatient: (id, patient) =>
      http.request('POST', `${CONVERSATION}patients/`, {
        schema: patientLinkSchema,
        params: { id },
        json: { patient },
      }),
    async removePatient(id, patient) {
      await http.request('DELETE', `${CONVERSATION}patients/{patient}/`, {
        schema: noContent,
        params: { id, patient },
      });
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// ASSUMED: upstream events. The service calls the relay when a conversation changes, so that a watched conversation is
// read at once instead of at the next poll. The event names the conversation and the kind of change, never message
// text: the relay reads what changed through the operations above, as for a poll. An event only wakes a read, so a
// lost event costs latency (the watch still polls slowly), never a message.
//
//   POST {relay}/v1/upstream-events
//   Content-Type: application/json
//   Upstream-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(UPSTREAM_EVENTS_SECRET, "<t>.<raw body>")>
//   {"id": "<unique event id>", "type": "conversation.message_created" | "conversation.status_changed",
//    "conversation": "<conversation id>", "occurred_at": "<ISO 8601>"}
//
// The relay answers 204 to a valid event, 401 `bad_signature` when the signature is missing, wrong or its timestamp
// is more than UPSTREAM_EVENT_MAX_AGE_SECONDS from the relay's clock (either way), and 204 again, without reading
// anything, to an event id it has already accepted (a replay or the service's own retry).
// ---------------------------------------------------------------------------------------------------------------------

export const UPSTREAM_EVENTS_PATH = '/v1/upstream-events';
export const UPSTREAM_SIGNATURE_HEADER = 'Upstream-Signature';
export const UPSTREAM_EVENT_MAX_AGE_SECONDS = 300;
/** An event body is a few hundred bytes; anything far larger is refused before it is parsed or its MAC computed. */
export const UPSTREAM_EVENT_MAX_BYTES = 4096;

export const upstreamEventSchema = z.object({
  id: z.string().min(1).max(200),
  type: z.enum(['conversation.message_created', 'conversation.status_changed']),
  conversation: z.string().min(1).max(200),
  occurred_at: z.string().datetime({ offset: true }),
});
export type UpstreamEvent = z.infer<typeof upstreamEventSchema>;
