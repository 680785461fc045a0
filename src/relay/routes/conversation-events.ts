// GET /v1/conversation/events, the live stream (src/shared/wire.ts): refusals before the 200 answer as every call's do;
// after it, in the stream. The stream itself is the live hub's (live/live-hub.ts).
import { type Context, Hono } from 'hono';
import type { ServerResponse } from 'node:http';
import { alreadySent } from '../http/already-sent.ts';
import { ApiError } from '../http/api-error.ts';
import type { RelayEnv } from '../http/env.ts';
import { nodeSink, STREAM_HEADERS, webSink } from '../live/stream-sink.ts';
import { afterQuery, type ConversationCalls } from './conversation-calls.ts';
import type { ConversationDependencies } from './conversation-dependencies.ts';

export function eventRoutes(
  { reads: { live } }: Pick<ConversationDependencies, 'reads'>,
  { openedClaims, admit }: ConversationCalls,
) {
  return new Hono<RelayEnv>().get('/conversation/events', async (c) => {
    const opened = openedClaims(c);
    const after = afterQuery.safeParse(c.req.query('after'));
    if (!after.success) throw new ApiError('bad_request', undefined, 'after must be a whole number.');
    // The policy's own answer before the 200; every read the stream makes after it asks the policy again.
    const claims = await admit(c, opened);
    const refusal = live.refusal(claims.conversationId);
    // The panel falls back to polling on any answer but a stream.
    if (refusal === 'too_many_streams')
      throw new ApiError(
        'upstream_unavailable',
        30,
        'This instance holds as many live streams as it may; poll instead.',
      );
    if (refusal === 'too_many_for_conversation')
      throw new ApiError('rate_limited', 60, 'Too many live streams for this conversation; poll instead.');
    const subject = { conversationId: claims.conversationId, expiresAt: claims.expiresAt };
    const outgoing = serverResponseOf(c);
    if (outgoing !== null) {
      void live.open(subject, after.data ?? 0, nodeSink(outgoing, requestIdHeader(c)));
      return alreadySent();
    }
    const { sink, body } = webSink();
    void live.open(subject, after.data ?? 0, sink);
    return new Response(body, { status: 200, headers: { ...STREAM_HEADERS, ...requestIdHeader(c) } });
  });
}

/** Node's ServerResponse under @hono/node-server (`env.outgoing`); null under app.request(). */
function serverResponseOf(c: Context<RelayEnv>): ServerResponse | null {
  const env = c.env as { outgoing?: unknown } | undefined;
  return typeof env === 'object' &&
    env !== null &&
    typeof (env.outgoing as ServerResponse | undefined)?.writeHead === 'function'
    ? (env.outgoing as ServerResponse)
    : null;
}

/** The answer's X-Request-Id: the stream's headers are written by hand, past the middleware that sets it. */
function requestIdHeader(c: Context<RelayEnv>): Record<string, string> {
  return { 'X-Request-Id': c.get('requestId'), 'Referrer-Policy': 'strict-origin-when-cross-origin' };
}
