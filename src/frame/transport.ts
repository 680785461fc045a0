// The frame's one way to the relay (same origin, so no CORS and no cookies to manage). Every answer is parsed;
// every failure becomes a TransportError with a code the panel maps to words. The conversation's handle goes in the
// Authorization header, never in a URL: URLs end up in proxies' logs.
import { parseWebchatConfiguration, type WebchatConfiguration } from '../shared/configuration.ts';
import type { CreatedConversation, Escalated, MessagesAfter, WireMessage } from '../shared/wire.ts';
import {
  parseApiErrorCode,
  parseCreatedConversation,
  parseEscalated,
  parseMessagesAfter,
  parseSentMessage,
} from '../shared/wire-parse.ts';
import { readLiveStream, type LiveEvent } from './live-stream.ts';
import { TransportError, type TransportErrorCode } from './transport-error.ts';

export { TransportError, type TransportErrorCode };

export interface Transport {
  getConfiguration(clientId: string): Promise<WebchatConfiguration>;
  /** `idempotencyKey`: the same for every retry of one create, so the relay opens one conversation. */
  createConversation(clientId: string, idempotencyKey: string): Promise<CreatedConversation>;
  sendMessage(handle: string, text: string, idempotencyKey: string): Promise<WireMessage>;
  messagesAfter(handle: string, after: number): Promise<MessagesAfter>;
  escalate(handle: string): Promise<Escalated>;
  /** The patient switched languages: the relay tells the service, which answers in it from then on. */
  setLanguage?(handle: string, language: string): Promise<void>;
  /** End chat: retires the handle on the relay, so a copy of it opens nothing. */
  endConversation(handle: string): Promise<void>;
  /**
   * Opens the live stream of messages after `after`: `listener` hears its events, the last of them an `error` unless
   * the stream was stopped with the function this returns. Absent where there is no stream (the demo's preview).
   */
  events?(handle: string, after: number, listener: (event: LiveEvent) => void): () => void;
}

/** `language`: the panel's language when a conversation is created, so the service answers in it. */
export function createTransport(
  fetchImpl: typeof fetch,
  base = '',
  language: () => string | undefined = () => undefined,
): Transport {
  /** One request, answered 2xx; any other answer or failure is thrown as a TransportError. */
  async function request(path: string, init: RequestInit = {}): Promise<Response> {
    let response: Response;
    try {
      // The relay's proof that a read comes from its own frame (src/relay/http/same-origin.ts).
      const headers = { 'X-Practice-Chat': 'frame', ...(init.headers as Record<string, string> | undefined) };
      // Credentials stay fetch's default, same-origin: the relay sets no cookie, and the handle goes in a header.
      response = await fetchImpl(base + path, { cache: 'no-store', ...init, headers });
    } catch {
      throw new TransportError('network');
    }
    if (!response.ok) {
      const body: unknown = await response.json().catch(() => undefined);
      const retryAfter = Number(response.headers.get('Retry-After'));
      const code: TransportErrorCode =
        parseApiErrorCode(body) ?? (response.status >= 500 ? 'upstream_unavailable' : 'bad_response');
      throw new TransportError(code, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined);
    }
    return response;
  }

  /** One call; `parse` answers null for an answer that is not the expected shape. */
  async function call<T>(path: string, parse: (body: unknown) => T | null, init: RequestInit = {}): Promise<T> {
    const parsed = parse(await (await request(path, init)).json().catch(() => undefined));
    if (parsed === null) throw new TransportError('bad_response');
    return parsed;
  }

  const postJson = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const withHandle = (handle: string, init: RequestInit = {}): RequestInit => ({
    ...init,
    headers: { ...(init.headers as Record<string, string> | undefined), Authorization: `Bearer ${handle}` },
  });

  return {
    // The one rule for configurations, in the loader and here alike.
    getConfiguration: (clientId) =>
      call(`/v1/webchat-configuration?client_id=${encodeURIComponent(clientId)}`, parseWebchatConfiguration),
    createConversation: (clientId, idempotencyKey) =>
      call(
        '/v1/conversations',
        parseCreatedConversation,
        postJson({ client_id: clientId, language: language() }, { 'Idempotency-Key': idempotencyKey }),
      ),
    // 204, no body.
    setLanguage: (handle, tag) =>
      call(
        '/v1/conversation/language',
        () => undefined,
        withHandle(handle, { ...postJson({ language: tag }), method: 'PUT' }),
      ),
    sendMessage: (handle, text, idempotencyKey) =>
      call(
        '/v1/conversation/messages',
        parseSentMessage,
        withHandle(handle, postJson({ text }, { 'Idempotency-Key': idempotencyKey })),
      ),
    messagesAfter: (handle, after) =>
      call(`/v1/conversation/messages?after=${after}`, parseMessagesAfter, withHandle(handle)),
    escalate: (handle) => call('/v1/conversation/escalate', parseEscalated, withHandle(handle, postJson({}))),
    // 204, no body: any successful answer will do.
    endConversation: (handle) => call('/v1/conversation', () => undefined, withHandle(handle, { method: 'DELETE' })),
    events(handle, after, listener) {
      const stop = new AbortController();
      request(`/v1/conversation/events?after=${after}`, withHandle(handle, { signal: stop.signal }))
        .then((response) => readLiveStream(response, listener))
        .catch((error: unknown) =>
          listener({ type: 'error', data: error instanceof TransportError ? error : new TransportError('network') }),
        );
      return () => stop.abort();
    },
  };
}
