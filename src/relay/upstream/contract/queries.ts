// The list endpoints' query strings: the documented conventions (`page`, `page_size` at most 100, `__in` lists,
// `__gte`/`__lte` bounds, `ordering`) applied to the filters the relay may ask for. `client_reference` is ASSUMED
// (see operations.ts, createConversation).
import type { Query } from './upstream-http.ts';
import type { Call, Conversation } from './schemas.ts';
import { MAX_PAGE_SIZE } from './exchanges.ts';

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

const list = (values: readonly string[] | undefined) => (values === undefined ? undefined : values.join(','));
export const pageSize = (size: number | undefined) =>
  size === undefined ? undefined : Math.min(Math.max(Math.trunc(size), 1), MAX_PAGE_SIZE);

export function callQuery(q: CallQuery): Query {
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

export function conversationQuery(q: ConversationFilters): Query {
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
