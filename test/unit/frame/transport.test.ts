// What the frame's transport puts on the wire for each conversation call: the handle in Authorization, never in a
// URL (URLs end up in proxies' access and error logs).
import { describe, expect, it } from 'vitest';
import { createTransport } from '../../../src/frame/transport.ts';

const HANDLE = 'AbCdEfGh_0123-handle-that-must-stay-out-of-urls';
const MESSAGE = {
  id: 'm1',
  sequence: 1,
  sender: 'visitor',
  author_name: 'You',
  text: 'hi',
  created_at: '2026-11-22T10:00:00Z',
};

/** A fetch that records each request and answers what the relay would. */
function recordingFetch() {
  const requests: Array<{ url: string; method: string; headers: Record<string, string> }> = [];
  const answers: Record<string, unknown> = {
    'POST /v1/conversation/messages': { message: MESSAGE },
    'GET /v1/conversation/messages': { messages: [], cursor: 3, status: 'open', status_as_of: 0 },
    'POST /v1/conversation/escalate': { status: 'escalated', status_as_of: 0 },
    'DELETE /v1/conversation': null,
  };
  const fetchImpl: typeof fetch = async (input, init = {}) => {
    const url = String(input);
    const method = init.method ?? 'GET';
    requests.push({ url, method, headers: { ...(init.headers as Record<string, string>) } });
    const answer = answers[`${method} ${new URL(url).pathname}`];
    if (answer === undefined)
      return new Response(JSON.stringify({ error: { code: 'not_found', message: 'Not found.' } }), { status: 404 });
    return answer === null
      ? new Response(null, { status: 204 })
      : new Response(JSON.stringify(answer), { status: 200 });
  };
  return { fetchImpl, requests };
}

describe('the frame transport', () => {
  it('sends every conversation call with the handle in Authorization and in no URL', async () => {
    const { fetchImpl, requests } = recordingFetch();
    const transport = createTransport(fetchImpl, 'https://relay.test');
    await transport.sendMessage(HANDLE, 'hi', 'key-0000001');
    await transport.messagesAfter(HANDLE, 2);
    await transport.escalate(HANDLE);
    await transport.endConversation(HANDLE);

    expect(requests.map(({ method, url }) => `${method} ${url}`)).toEqual([
      'POST https://relay.test/v1/conversation/messages',
      'GET https://relay.test/v1/conversation/messages?after=2',
      'POST https://relay.test/v1/conversation/escalate',
      'DELETE https://relay.test/v1/conversation',
    ]);
    for (const request of requests) {
      expect(request.url).not.toContain(HANDLE);
      expect(request.headers.Authorization).toBe(`Bearer ${HANDLE}`);
      expect(request.headers['X-Practice-Chat']).toBe('frame');
    }
    expect(requests[0]!.headers['Idempotency-Key']).toBe('key-0000001');
  });

  it('sends no Authorization header where there is no handle yet', async () => {
    const requests: Array<Record<string, string>> = [];
    const transport = createTransport(async (_input, init = {}) => {
      requests.push({ ...(init.headers as Record<string, string>) });
      return new Response(JSON.stringify({ conversation: HANDLE, expires_at: '2026-11-22T22:00:00Z' }), {
        status: 201,
      });
    });
    await transport.createConversation('demo-client', 'create-key-01');
    expect(requests[0]).not.toHaveProperty('Authorization');
    // The create's own key, so a retried create gives the same handle and opens nothing more upstream.
    expect(requests[0]!['Idempotency-Key']).toBe('create-key-01');
  });
});
