// The frame transport's live stream (GET /v1/conversation/events) over a fetch whose answer the test writes byte by
// byte: the handle in Authorization only, each event parsed, UTF-8 split anywhere, and every way a stream ends
// reported as an error with a code (the stream's own error event, a refusal, an answer that is not a stream, an event
// that does not parse, a stream that just stops).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LiveEvent } from '../../../src/frame/live-stream.ts';
import { createTransport } from '../../../src/frame/transport.ts';

const HANDLE = 'AbCdEfGh_0123-handle-that-must-stay-out-of-urls';
const MESSAGE = {
  id: 'm4',
  sequence: 4,
  sender: 'agent',
  author_name: 'Maria',
  text: 'Hola, ¿cómo está? 💬',
  created_at: '2026-11-22T10:00:00Z',
};
const SSE = { 'Content-Type': 'text/event-stream; charset=utf-8' };

/** A fetch answering one response whose body the test writes; records the request. */
function streamingFetch(status = 200, headers: Record<string, string> = SSE) {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start: (c) => {
      controller = c;
    },
  });
  const requests: Array<{ url: string; headers: Record<string, string>; signal: AbortSignal | null | undefined }> = [];
  const fetchImpl: typeof fetch = async (input, init = {}) => {
    requests.push({
      url: String(input),
      headers: { ...(init.headers as Record<string, string>) },
      signal: init.signal,
    });
    init.signal?.addEventListener('abort', () => controller.error(new DOMException('aborted', 'AbortError')));
    return new Response(body, { status, headers });
  };
  return {
    fetchImpl,
    requests,
    write: (bytes: Uint8Array | string) =>
      controller.enqueue(typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes),
    end: () => controller.close(),
  };
}

function open(fetchImpl: typeof fetch, after = 3) {
  const events: LiveEvent[] = [];
  const stop = createTransport(fetchImpl, 'https://relay.test').events!(HANDLE, after, (event) => events.push(event));
  const named = () =>
    events
      .filter((event) => event.type !== 'alive')
      .map((event) => (event.type === 'error' ? `error ${event.data.code}` : event.type));
  return { events, stop, named };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 5));
const frame = (event: string, data: unknown, id?: number) =>
  `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

describe('the live stream, read through fetch', () => {
  it('asks for events after the cursor with the handle in Authorization only, and parses each event', async () => {
    const relay = streamingFetch();
    const { events, named } = open(relay.fetchImpl);
    relay.write(': stream open\n\n');
    relay.write(frame('status', { status: 'escalated', status_as_of: 7 }));
    relay.write(frame('message', { ...MESSAGE, extra: 'dropped' }, 4));
    await settle();
    expect(relay.requests).toHaveLength(1);
    expect(relay.requests[0]!.url).toBe('https://relay.test/v1/conversation/events?after=3');
    expect(relay.requests[0]!.url).not.toContain(HANDLE);
    expect(relay.requests[0]!.headers.Authorization).toBe(`Bearer ${HANDLE}`);
    expect(relay.requests[0]!.headers['X-Practice-Chat']).toBe('frame');
    expect(named()).toEqual(['status', 'message']);
    expect(events).toContainEqual({ type: 'status', data: { status: 'escalated', status_as_of: 7 } });
    expect(events).toContainEqual({ type: 'message', data: MESSAGE });
    // Every chunk, the comment included, tells the panel the stream is alive.
    expect(events[0]).toEqual({ type: 'alive' });
  });

  it('decodes UTF-8 split anywhere between chunks (property)', async () => {
    const bytes = new TextEncoder().encode(`: open\n\n${frame('message', MESSAGE, 4)}`);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 12 }), async (places) => {
        const relay = streamingFetch();
        const { events } = open(relay.fetchImpl);
        let from = 0;
        for (const place of [...new Set(places)].sort((a, b) => a - b)) {
          relay.write(bytes.slice(from, place));
          from = place;
        }
        relay.write(bytes.slice(from));
        await settle();
        expect(events.filter((event) => event.type === 'message')).toEqual([{ type: 'message', data: MESSAGE }]);
      }),
      { numRuns: 60 },
    );
  });

  it('a reconnect event is passed on; the stream ending afterwards is an error the panel no longer listens to', async () => {
    const relay = streamingFetch();
    const { named } = open(relay.fetchImpl);
    relay.write(frame('reconnect', { reason: 'shutdown' }));
    relay.end();
    await settle();
    expect(named()).toEqual(['reconnect', 'error network']);
  });

  it.each([
    ['session_expired', 'error session_expired'],
    ['conversation_resolved', 'error conversation_resolved'],
  ])("the stream's own error event (%s) ends it with that code", async (code, expected) => {
    const relay = streamingFetch();
    const { named } = open(relay.fetchImpl);
    relay.write(frame('error', { error: { code, message: 'x' } }));
    relay.write(frame('status', { status: 'open', status_as_of: 1 }));
    await settle();
    expect(named()).toEqual([expected]);
  });

  it('a refusal before the stream answers with its code and Retry-After', async () => {
    const fetchImpl: typeof fetch = async () =>
      new Response(JSON.stringify({ error: { code: 'rate_limited', message: 'x' } }), {
        status: 429,
        headers: { 'Content-Type': 'application/json', 'Retry-After': '60' },
      });
    const { events } = open(fetchImpl);
    await settle();
    expect(events).toHaveLength(1);
    expect(events[0]!.type === 'error' && [events[0]!.data.code, events[0]!.data.retryAfterMs]).toEqual([
      'rate_limited',
      60_000,
    ]);
  });

  it("a 200 that is not an event stream (a proxy's page) is bad_response", async () => {
    const relay = streamingFetch(200, { 'Content-Type': 'text/html' });
    const { named } = open(relay.fetchImpl);
    relay.write(frame('message', MESSAGE, 4));
    await settle();
    expect(named()).toEqual(['error bad_response']);
  });

  it.each([
    ['data that is not JSON', 'event: message\ndata: {not json\n\n'],
    ['a message of the wrong shape', frame('message', { ...MESSAGE, sender: 'system' })],
    ['a status of the wrong shape', frame('status', { status: 'closed', status_as_of: 1 })],
    ['an unknown error code', frame('error', { error: { code: 'teapot' } })],
  ])('%s ends the stream as bad_response', async (_what, text) => {
    const relay = streamingFetch();
    const { named } = open(relay.fetchImpl);
    relay.write(text);
    relay.write(frame('message', MESSAGE, 4));
    await settle();
    expect(named()).toEqual(['error bad_response']);
  });

  it("skips an event type it does not know (a newer relay's)", async () => {
    const relay = streamingFetch();
    const { named } = open(relay.fetchImpl);
    relay.write(frame('typing', { who: 'agent' }));
    relay.write(frame('message', MESSAGE, 4));
    await settle();
    expect(named()).toEqual(['message']);
  });

  it('a stream that just stops, or a failed fetch, is network', async () => {
    const relay = streamingFetch();
    const first = open(relay.fetchImpl);
    relay.write(': open\n\n');
    relay.end();
    const second = open(async () => {
      throw new TypeError('Failed to fetch');
    });
    await settle();
    expect(first.named()).toEqual(['error network']);
    expect(second.named()).toEqual(['error network']);
  });

  it('stop() aborts the request', async () => {
    const relay = streamingFetch();
    const { stop } = open(relay.fetchImpl);
    await settle();
    expect(relay.requests[0]!.signal?.aborted).toBe(false);
    stop();
    expect(relay.requests[0]!.signal?.aborted).toBe(true);
  });
});
