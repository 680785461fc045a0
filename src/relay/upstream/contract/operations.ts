// The service's operations as the relay calls them: for each, which exchange (exchanges.ts), what it sends and how
// its answer is parsed (schemas.ts). The conversation operations' bodies and answers are ASSUMED, as the contract's
// entry (index.ts) says, and the simulator implements exactly this.
import { z } from 'zod';
import type { Cancellation } from '../cancellation.ts';
import type { UpstreamHttp } from './upstream-http.ts';
import { EXCHANGES, MAX_PAGE_SIZE } from './exchanges.ts';
import { collectAll, walkPages } from './pagination.ts';
import { type CallQuery, type ConversationFilters, callQuery, conversationQuery, pageSize } from './queries.ts';
import {
  type Call,
  type Conversation,
  type ConversationDetail,
  type Message,
  type Page,
  type PatientLink,
  type WebchatConfiguration,
  callSchema,
  conversationDetailSchema,
  conversationSchema,
  messageSchema,
  page,
  patientLinkSchema,
  webchatConfigurationSchema,
} from './schemas.ts';

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
  sendMessage(id: string, text: string, options?: { signal?: Cancellation }): Promise<Message>;
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

/** The fields that have a value: an absent change is not sent as `null`. */
const defined = (fields: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined));

// ASSUMED: the patient's language. A conversation record has a `language` field, a BCP 47 tag as the widget names its
// languages (`en`, `es`, `zh-Hant`, `pt`, …), so that the assistant and the team answer in it. The relay sends it
// when it creates the conversation (`{"practice", "channel": "webchat", "language"}`) and again when the patient
// switches languages (`PATCH /api/conversations/{id}/` `{"language"}`). A service that ignores the field still works;
// it answers in its own language.

export function createContract(http: UpstreamHttp): UpstreamContract {
  type Exchange = (typeof EXCHANGES)[keyof typeof EXCHANGES];
  const detail = ({ method, path }: Exchange, id: string, json?: unknown) =>
    http.request(method, path, {
      schema: conversationDetailSchema,
      params: { id },
      ...(json === undefined ? {} : { json }),
    });
  const { configuration, listCalls, createConversation, listConversations, sendMessage, readMessages } = EXCHANGES;
  const { listPatients, addPatient, removePatient } = EXCHANGES;

  return {
    getWebchatConfiguration: (clientId) =>
      http.request(configuration.method, configuration.path, {
        schema: webchatConfigurationSchema,
        query: { client_id: clientId, format: 'json' },
      }),

    listCalls: (query = {}) =>
      http.request(listCalls.method, listCalls.path, { schema: callPage, query: callQuery(query) }),
    walkCalls: (query = {}) => walkPages(http, listCalls.path, callQuery({ ...query, page: undefined }), callSchema),

    createConversation: ({ practice, subject, language, clientReference }) =>
      http.request(createConversation.method, createConversation.path, {
        schema: conversationDetailSchema,
        json: { practice, channel: 'webchat', ...defined({ subject, language, client_reference: clientReference }) },
      }),
    getConversation: (id) => detail(EXCHANGES.readConversation, id),
    listConversations: (filters = {}) =>
      http.request(listConversations.method, listConversations.path, {
        schema: conversationPage,
        query: conversationQuery(filters),
      }),
    walkConversations: (filters = {}) =>
      walkPages(http, listConversations.path, conversationQuery({ ...filters, page: undefined }), conversationSchema),
    updateConversation: (id, { subject, language }) =>
      detail(EXCHANGES.updateConversation, id, defined({ subject, language })),

    sendMessage: (id, text, { signal } = {}) =>
      http.request(sendMessage.method, sendMessage.path, {
        schema: messageSchema,
        params: { id },
        json: { text, sender: 'visitor' },
        ...(signal === undefined ? {} : { signal }),
      }),
    async listMessagesAfter(id, afterSequence, options = {}) {
      const after = Number.isSafeInteger(afterSequence) && afterSequence > 0 ? afterSequence : 0;
      const result = await http.request(readMessages.method, readMessages.path, {
        schema: messagePage,
        params: { id },
        query: { after, page_size: pageSize(options.pageSize ?? MAX_PAGE_SIZE) },
      });
      return { messages: result.results, hasMore: result.links.next !== null };
    },

    switchToAgentMode: (id) => detail(EXCHANGES.agentMode, id),
    escalate: (id) => detail(EXCHANGES.escalate, id),
    resolve: (id) => detail(EXCHANGES.resolve, id),

    listPatients: (id) =>
      collectAll(
        walkPages(http, listPatients.path, { page_size: MAX_PAGE_SIZE }, patientLinkSchema, { params: { id } }),
      ),
    addPatient: (id, patient) =>
      http.request(addPatient.method, addPatient.path, {
        schema: patientLinkSchema,
        params: { id },
        json: { patient },
      }),
    async removePatient(id, patient) {
      await http.request(removePatient.method, removePatient.path, { schema: noContent, params: { id, patient } });
    },
  };
}
