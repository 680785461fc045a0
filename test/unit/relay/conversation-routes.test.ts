import { afterEach, describe, expect, it } from 'vitest';
import { createRelayHarness, RELAY_ORIGIN } from './relay-harness.ts';
import { bearer, CONVERSATION, ESCALATE, MESSAGES } from '../../support/conversation-calls.ts';

// Two random-looking secrets (HANDLE_SECRET refuses guessable ones).
const STRONG_SECRET_A = 'pZyV4QI7H4v0fJ+2mQ9sLk3XwB8rT1nE6cYdA5uGh0o=';
const STRONG_SECRET_B = 'Q2wE4rT6yU8iO0pA1sD3fG5hJ7kL9zX+cV/bN2mQw9s=';

let harness: ReturnType<typeof createRelayHarness>;
afterEach(() => harness?.close());

const send = (handle: string, text: string, key = 'key-0000001') =>
  harness.fromPanel(handle, MESSAGES, { body: { text }, headers: { 'Idempotency-Key': key } });

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  // Up to about 5 s: returns as soon as the condition holds, and a loaded shared machine can be slow.
  for (let attempt = 0; attempt < 250; attempt++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('condition not reached');
}

describe('POST /v1/conversations', () => {
  it('creates an upstream conversation and answers an opaque handle that hides the upstream id', async () => {
    harness = createRelayHarness();
    const response = await harness.fromFrame('/v1/conversations', { body: { client_id: 'demo-client' } });
    expect(response.status).toBe(201);
    expect(response.headers.get('Cache-Control')).toBe('no-store');
    const { conversation, expires_at } = await response.json();
    expect(harness.simulator.counters.conversationsCreated).toBe(1);
    const [upstreamId] = [...harness.simulator.store.conversations.keys()];
    expect(conversation).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(conversation).not.toContain(upstreamId);
    expect(Buffer.from(conversation, 'base64url').toString('latin1')).not.toContain(upstreamId);
    expect(Date.parse(expires_at)).toBeGreaterThan(Date.now());
  });

  it('refuses an inactive configuration with `inactive`, without creating anything upstream', async () => {
    harness = createRelayHarness();
    const response = await harness.fromFrame('/v1/conversations', { body: { client_id: 'demo-inactive' } });
    expect(response.status).toBe(403);
    expect((await response.json()).error.code).toBe('inactive');
    expect(harness.simulator.counters.conversationsCreated).toBe(0);
  });

  it.each([
    ['an unknown configuration', { client_id: 'nobody' }, 404, 'not_found'],
    ['a body without client_id', { practice: 'x' }, 400, 'bad_request'],
    ['a malformed client_id', { client_id: '<script>' }, 400, 'bad_request'],
    ['a body that is not JSON', '{"client_id":', 400, 'bad_request'],
  ])('refuses %s', async (_why, body, status, code) => {
    harness = createRelayHarness();
    const response = await harness.fromFrame('/v1/conversations', { body });
    expect(response.status).toBe(status);
    expect((await response.json()).error.code).toBe(code);
  });
});

describe('origin and content-type rules of conversation calls', () => {
  const cases: Array<[string, Record<string, string>, number, string]> = [
    ['no Origin', { Origin: '', 'Content-Type': 'application/json' }, 403, 'forbidden_origin'],
    [
      'a cross-origin caller',
      { Origin: 'https://evil.example', 'Content-Type': 'application/json' },
      403,
      'forbidden_origin',
    ],
    [
      'a practice page (allowed to embed, not to call)',
      { Origin: 'http://localhost:3000', 'Content-Type': 'application/json' },
      403,
      'forbidden_origin',
    ],
    ['text/plain', { Origin: RELAY_ORIGIN, 'Content-Type': 'text/plain' }, 415, 'unsupported_media_type'],
    [
      'a form post',
      { Origin: RELAY_ORIGIN, 'Content-Type': 'application/x-www-form-urlencoded' },
      415,
      'unsupported_media_type',
    ],
    [
      'a multipart post',
      { Origin: RELAY_ORIGIN, 'Content-Type': 'multipart/form-data; boundary=x' },
      415,
      'unsupported_media_type',
    ],
  ];

  it.each(cases)('refuses %s when creating', async (_why, headers, status, code) => {
    harness = createRelayHarness();
    const response = await harness.app.request(`${RELAY_ORIGIN}/v1/conversations`, {
      method: 'POST',
      headers: Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== '')),
      body: JSON.stringify({ client_id: 'demo-client' }),
    });
    expect(response.status).toBe(status);
    expect((await response.json()).error.code).toBe(code);
    expect(harness.simulator.counters.conversationsCreated).toBe(0);
  });

  it.each(cases)('refuses %s when sending', async (_why, headers, status, code) => {
    harness = createRelayHarness();
    const handle = await harness.startConversation();
    const response = await harness.app.request(`${RELAY_ORIGIN}${MESSAGES}`, {
      method: 'POST',
      headers: {
        ...Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== '')),
        'Idempotency-Key': 'key-0000001',
        ...bearer(handle),
      },
      body: JSON.stringify({ text: 'hello' }),
    });
    expect(response.status).toBe(status);
    expect((await response.json()).error.code).toBe(code);
    expect(harness.simulator.counters.messagesReceived).toBe(0);
  });

  it('accepts a same-origin read from the frame, which browsers send without Origin', async () => {
    harness = createRelayHarness();
    const handle = await harness.startConversation();
    const read = (headers: Record<string, string>) =>
      harness.app.request(`${RELAY_ORIGIN}${MESSAGES}`, { headers: { ...bearer(handle), ...headers } });
    expect((await read({ 'X-Practice-Chat': 'frame', 'Sec-Fetch-Site': 'same-origin' })).status).toBe(200);
    // Plain http on a real host name: browsers send no Sec-Fetch-Site there.
    expect((await read({ 'X-Practice-Chat': 'frame' })).status).toBe(200);
    expect((await read({ 'X-Practice-Chat': 'frame', 'Sec-Fetch-Site': 'cross-site' })).status).toBe(403);
    expect((await read({ 'X-Practice-Chat': 'frame', 'Sec-Fetch-Site': 'same-site' })).status).toBe(403);
    expect((await read({ 'X-Practice-Chat': 'frame', Origin: 'https://evil.example' })).status).toBe(403);
    expect((await read({ 'Sec-Fetch-Site': 'same-origin' })).status).toBe(403);
    expect((await read({})).status).toBe(403);
    // The header never lets a write through without the relay's Origin.
    const write = await harness.app.request(`${RELAY_ORIGIN}${ESCALATE}`, {
      method: 'POST',
      headers: {
        'X-Practice-Chat': 'frame',
        'Sec-Fetch-Site': 'same-origin',
        'Content-Type': 'application/json',
        ...bearer(handle),
      },
      body: '{}',
    });
    expect(write.status).toBe(403);
  });

  it('refuses a cross-origin read of messages', async () => {
    harness = createRelayHarness();
    const handle = await harness.startConversation();
    const response = await harness.app.request(`${RELAY_ORIGIN}${MESSAGES}`, {
      headers: { Origin: 'https://evil.example', ...bearer(handle) },
    });
    expect(response.status).toBe(403);
  });
});

describe('POST /v1/conversation/messages', () => {
  it('sends the message and answers it', async () => {
    harness = createRelayHarness();
    const handle = await harness.startConversation();
    const response = await send(handle, 'What are your opening hours?');
    expect(response.status).toBe(201);
    expect((await response.json()).message).toMatchObject({
      sender: 'visitor',
      text: 'What are your opening hours?',
      sequence: 1,
    });
    expect(harness.simulator.counters.messagesReceived).toBe(1);
  });

  it('sends once for the same key and body, and answers the same result', async () => {
    harness = createRelayHarness();
    const handle = await harness.startConversation();
    const first = await (await send(handle, 'hello', 'same-key-1')).json();
    const second = await send(handle, 'hello', 'same-key-1');
    expect(second.status).toBe(201);
    expect(await second.json()).toEqual(first);
    expect(harness.simulator.counters.messagesReceived).toBe(1);
  });

  it('sends once for concurrent duplicates', async () => {
    harness = createRelayHarness();
    const handle = await harness.startConversation();
    harness.simulator.faults.set({ latencyMs: 50, match: /messages/ });
    const answers = await Promise.all(Array.from({ length: 10 }, () => send(handle, 'hello', 'concurrent-1')));
    const bodies = await Promise.all(answers.map((answer) => answer.json()));
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(201));
    expect(new Set(bodies.map((body) => body.message.id)).size).toBe(1);
    expect(harness.simulator.counters.messagesReceived).toBe(1);
  });

  it('refuses the same key with another body', async () => {
    harness = createRelayHarness();
    const handle = await harness.startConversation();
    await send(handle, 'hello', 'same-key-2');
    const response = await send(handle, 'something else', 'same-key-2');
    expect(response.status).toBe(409);
    expect((await response.json()).error.code).toBe('idempotency_conflict');
    expect(harness.simulator.counters.messagesReceived).toBe(1);
  });

  it('sends again with the same key after a failed send, so a retry is never lost', async () => {
    // A 5xx may come after the service stored the message: the retry reads back once the settle window is over.
    let later = 0;
    harness = createRelayHarness({ now: () => Date.now() + later });
    const handle = await harness.startConversation();
    harness.simulator.faults.set({ errorRate: 1, match: /messages/ });
    const failed = await send(handle, 'hello', 'retry-key-1');
    expect(failed.status).toBe(503);
    expect((await failed.json()).error.code).toBe('upstream_unavailable');
    harness.simulator.faults.reset();
    later += 15_000;
    const retried = await send(handle, 'hello', 'retry-key-1');
    expect(retried.status).toBe(201);
    expect(harness.simulator.counters.messagesReceived).toBe(1);
  });

  it.each([
    ['no Idempotency-Key', undefined, { text: 'hi' }],
    ['a malformed Idempotency-Key', 'short', { text: 'hi' }],
    ['a blank text', 'key-0000001', { text: '   ' }],
    ['a text that is not a string', 'key-0000001', { text: 42 }],
    ['a text over the length limit', 'key-0000001', { text: 'x'.repeat(2001) }],
  ])('refuses %s with bad_request', async (_why, key, body) => {
    harness = createRelayHarness();
    const handle = await harness.startConversation();
    const response = await harness.fromPanel(handle, MESSAGES, {
      body,
      headers: key === undefined ? {} : { 'Idempotency-Key': key },
    });
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe('bad_request');
    expect(harness.simulator.counters.messagesReceived).toBe(0);
  });

  it('says a resolved conversation has ended', async () => {
    harness = createRelayHarness();
    const handle = await harness.startConversation();
    await harness.resolveUpstream();
    const response = await send(handle, 'are you there?');
    expect(response.status).toBe(409);
    expect((await response.json()).error.code).toBe('conversation_resolved');
  });
});

describe('handles', () => {
  it.each([
    ['a made-up handle', 'not-a-real-handle-at-all-0000000000000000000000'],
    ['a handle with bad characters', 'abc$def'],
  ])('refuses %s with session_expired', async (_why, handle) => {
    harness = createRelayHarness();
    const response = await harness.fromPanel(handle, MESSAGES);
    expect(response.status).toBe(401);
    expect((await response.json()).error.code).toBe('session_expired');
  });

  it('refuses an altered handle', async () => {
    harness = createRelayHarness();
    const handle = await harness.startConversation();
    const bytes = Buffer.from(handle, 'base64url');
    bytes[20] = (bytes[20] ?? 0) ^ 1;
    const response = await harness.fromPanel(bytes.toString('base64url'), MESSAGES);
    expect((await response.json()).error.code).toBe('session_expired');
  });

  it('refuses a handle once it has expired', async () => {
    let clock = Date.now();
    harness = createRelayHarness({ now: () => clock, environment: { HANDLE_TTL_HOURS: '1' } });
    const handle = await harness.startConversation();
    expect((await harness.fromPanel(handle, MESSAGES)).status).toBe(200);
    clock += 61 * 60 * 1000;
    const response = await harness.fromPanel(handle, MESSAGES);
    expect((await response.json()).error.code).toBe('session_expired');
  });

  it('refuses a handle sealed with another secret', async () => {
    harness = createRelayHarness({ environment: { HANDLE_SECRET: STRONG_SECRET_A } });
    const handle = await harness.startConversation();
    const other = createRelayHarness({ environment: { HANDLE_SECRET: STRONG_SECRET_B } });
    try {
      expect((await other.fromPanel(handle, MESSAGES)).status).toBe(401);
    } finally {
      other.close();
    }
  });
});

describe('handles out of URLs', () => {
  // The form before issue 18: the handle in the path, where proxies log it. Nothing answers there any more.
  const oldForms: Array<[string, string, (handle: string) => string, unknown]> = [
    ['GET', 'messages', (handle) => `/v1/conversations/${handle}/messages?after=0`, undefined],
    ['POST', 'messages', (handle) => `/v1/conversations/${handle}/messages`, { text: 'hello' }],
    ['POST', 'escalate', (handle) => `/v1/conversations/${handle}/escalate`, {}],
    ['DELETE', 'the conversation', (handle) => `/v1/conversations/${handle}`, undefined],
  ];

  it.each(oldForms)(
    '%s %s with the handle in the path: 404 not_found, nothing upstream',
    async (method, _what, path, body) => {
      harness = createRelayHarness();
      const handle = await harness.startConversation();
      const before = harness.simulator.counters.apiRequests;
      // From the frame itself, and with the handle in Authorization as well: the path form is gone, not just refused.
      const response = await harness.fromPanel(handle, path(handle), {
        method,
        body,
        headers: { 'X-Practice-Chat': 'frame', 'Idempotency-Key': 'key-old-form-1' },
      });
      expect(response.status).toBe(404);
      expect((await response.json()).error.code).toBe('not_found');
      expect(harness.simulator.counters.apiRequests - before).toBe(0);
      // An old-style End chat retired nothing.
      expect((await harness.fromPanel(handle, `${MESSAGES}?after=0`)).status).toBe(200);
    },
  );

  it('answers a handle in the query string as no handle at all', async () => {
    harness = createRelayHarness();
    const handle = await harness.startConversation();
    const response = await harness.fromFrame(`${MESSAGES}?after=0&handle=${handle}`, {
      headers: { 'X-Practice-Chat': 'frame' },
    });
    expect(response.status).toBe(401);
    expect((await response.json()).error.code).toBe('session_expired');
  });

  it('End chat is DELETE /v1/conversation with the handle in Authorization', async () => {
    harness = createRelayHarness();
    const handle = await harness.startConversation();
    expect((await harness.fromPanel(handle, CONVERSATION, { method: 'DELETE' })).status).toBe(204);
    expect((await harness.fromPanel(handle, `${MESSAGES}?after=0`)).status).toBe(401);
  });
});

describe('GET /v1/conversation/messages and escalate', () => {
  it('answers messages after a cursor, with the bot reply, and the conversation status', async () => {
    harness = createRelayHarness();
    const handle = await harness.startConversation();
    await send(handle, 'Do you take my insurance?');
    const read = async (after: number) => (await harness.fromPanel(handle, `${MESSAGES}?after=${after}`)).json();
    const all = await waitFor(
      () => read(0),
      (body) => body.messages.length >= 2,
    );
    expect(all.status).toBe('open');
    expect(all.messages.map((message: { sender: string }) => message.sender)).toEqual(['visitor', 'bot']);
    expect(all.cursor).toBe(2);
    const none = await read(all.cursor);
    // status_as_of is the service's own updated_at for the conversation, as of the status given.
    const [upstream] = [...harness.simulator.store.conversations.values()];
    expect(none).toEqual({ messages: [], cursor: 2, status: 'open', status_as_of: Date.parse(upstream!.updated_at) });
  });

  it('refuses a cursor that is not a whole number', async () => {
    harness = createRelayHarness();
    const handle = await harness.startConversation();
    const response = await harness.fromPanel(handle, `${MESSAGES}?after=-1`);
    expect((await response.json()).error.code).toBe('bad_request');
  });

  it('escalates, and a team member writes', async () => {
    harness = createRelayHarness();
    const handle = await harness.startConversation();
    const response = await harness.fromPanel(handle, ESCALATE, { body: {} });
    expect(response.status).toBe(200);
    const [upstream] = [...harness.simulator.store.conversations.values()];
    expect(await response.json()).toEqual({ status: 'escalated', status_as_of: Date.parse(upstream!.updated_at) });
    const body = await waitFor(
      async () => (await harness.fromPanel(handle, `${MESSAGES}?after=0`)).json(),
      (value) => value.messages.some((message: { sender: string }) => message.sender === 'agent'),
    );
    expect(body.status).toBe('escalated');
  });
});

describe('deadlines and idempotency together', () => {
  it("never sends twice when the relay's deadline fires while the upstream send is still running", async () => {
    harness = createRelayHarness({ environment: { REQUEST_DEADLINE_MS: '200' } });
    const handle = await harness.startConversation();
    harness.simulator.faults.set({ latencyMs: 500, match: /messages/ });
    const first = await send(handle, 'slow message', 'slow-key-001');
    expect(first.status).toBe(504);
    // The browser retries with the same key; the retries wait on the one send that is still under way.
    const statuses = [first.status];
    while (statuses.at(-1) !== 201 && statuses.length < 6)
      statuses.push((await send(handle, 'slow message', 'slow-key-001')).status);
    expect(statuses.at(-1)).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(harness.simulator.counters.messagesReceived).toBe(1);
  });
});

describe('escalating a resolved conversation', () => {
  it('says the conversation has ended', async () => {
    harness = createRelayHarness();
    const handle = await harness.startConversation();
    await harness.resolveUpstream();
    const response = await harness.fromPanel(handle, ESCALATE, { body: {} });
    expect(response.status).toBe(409);
    expect((await response.json()).error.code).toBe('conversation_resolved');
  });
});
