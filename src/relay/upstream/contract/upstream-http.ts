// What the contract asks of the HTTP layer: an authorized request to a path template, and a GET of a link the
// service returned. The contract names what it needs here and http.ts implements it, so the contract (the one place
// to change for the real service) builds on nothing of the plumbing: tokens, transports and deadlines stay below.
import type { z } from 'zod';
import type { Cancellation } from '../cancellation.ts';

export type QueryValue = string | number | boolean | null | undefined;
export type Query = Readonly<Record<string, QueryValue>>;
export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface RequestOptions<S extends z.ZodType> {
  schema: S;
  /** Values for `{name}` placeholders of the path, encoded here. Errors name the template, never the values
   * (a patient identifier or a conversation id has no place in a log line). */
  params?: Readonly<Record<string, string>>;
  query?: Query;
  json?: unknown;
  signal?: Cancellation;
}

export interface UpstreamHttp {
  /** `path` is a template relative to baseUrl, starting with '/', e.g. '/api/conversations/{id}/'. */
  request<S extends z.ZodType>(method: Method, path: string, options: RequestOptions<S>): Promise<z.output<S>>;
  /** GET an absolute URL taken from a response (links.next). Only the upstream's own origin gets the token.
   * `route` names it in errors (the template it came from). */
  getAbsolute<S extends z.ZodType>(
    url: string,
    schema: S,
    options?: { route?: string; signal?: Cancellation },
  ): Promise<z.output<S>>;
}
