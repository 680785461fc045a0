// Bad input on every write: a coded error, no crash, and nothing sent upstream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelayHarness, RELAY_ORIGIN } from '../relay/relay-harness.ts';
import { bearer, ESCALATE, MESSAGES } from '../../support/conversation-calls.ts';

let harness: ReturnType<typeof createRelayHarness>;
let handle: string;
beforeAll(async () => {
  harness = createRelayHarness();
  handle = await harness.startConversation();
});
afterAll(() => harness.close());

const KEY = 'key-bad-input-0001';
type Request = { path: () => string; body: string; headers?: Record<string, string> };
const messages = () => MESSAGES;

const cases: Array<[string, Request, number, string]> = [
  [
    'a body over BODY_LIMIT_BYTES',
    { path: messages, body: JSON.stringify({ text: 'x'.repeat(20_000) }) },
    413,
    'payload_too_large',
  ],
  [
    'a 100 KB message',
    { path: messages, body: JSON.stringify({ text: 'x'.repeat(100 * 1024) }) },
    413,
    'payload_too_large',
  ],
  [
    'a message one character over MESSAGE_MAX_LENGTH',
    { path: messages, body: JSON.stringify({ text: 'x'.repeat(2001) }) },
    400,
    'bad_request',
  ],
  ['a blank message', { path: messages, body: JSON.stringify({ text: ' \n\t ' }) }, 400, 'bad_request'],
  ['a message that is not a string', { path: messages, body: JSON.stringify({ text: ['hello'] }) }, 400, 'bad_request'],
  [
    'a message with an unknown field',
    { path: messages, body: JSON.stringify({ text: 'hello', sender: 'agent' }) },
    400,
    'bad_request',
  ],
  [
    'a message with __proto__',
    { path: messages, body: '{"text":"hello","__proto__":{"polluted":true}}' },
    400,
    'bad_request',
  ],
  ['malformed JSON', { path: messages, body: '{"text": "hello"' }, 400, 'bad_request'],
  ['JSON that is not an object', { path: messages, body: '"hello"' }, 400, 'bad_request'],
  ['JSON null', { path: messages, body: 'null' }, 400, 'bad_request'],
  ['an empty body', { path: messages, body: '' }, 400, 'bad_request'],
  ['a body that is not UTF-8 JSON', { path: messages, body: '\u0000\u0001\u0002' }, 400, 'bad_request'],
  [
    'a wrong content type (text/html)',
    { path: messages, body: JSON.stringify({ text: 'hello' }), headers: { 'Content-Type': 'text/html' } },
    415,
    'unsupported_media_type',
  ],
  [
    'a wrong content type (application/xml)',
    { path: messages, body: JSON.stringify({ text: 'hello' }), headers: { 'Content-Type': 'application/xml' } },
    415,
    'unsupported_media_type',
  ],
  [
    'a new conversation with an unknown field',
    { path: () => '/v1/conversations', body: JSON.stringify({ client_id: 'demo-client', practice: 'other' }) },
    400,
    'bad_request',
  ],
  [
    'a new conversation with a 10,000-character client id',
    { path: () => '/v1/conversations', body: JSON.stringify({ client_id: 'a'.repeat(10_000) }) },
    400,
    'bad_request',
  ],
  ['an escalation with a field', { path: () => ESCALATE, body: JSON.stringify({ to: 'doctor' }) }, 400, 'bad_request'],
  ['an escalation with malformed JSON', { path: () => ESCALATE, body: '{' }, 400, 'bad_request'],
];

const oddKeys: Array<[string, string | null]> = [
  ['missing', null],
  ['empty', ''],
  ['too short', 'abc'],
  ['10 KB long', 'k'.repeat(10 * 1024)],
  ['with spaces', 'key with spaces 1'],
  ['with a newline escape', 'key%0Aset-cookie'],
  ['with non-ASCII', 'clé-idempotence-1'],
  ['with a path separator', '../../etc/passwd'],
  ['with quotes and markup', '"><script>1</script>'],
];

async function post({ path, body, headers = {} }: Request, key: string | null = KEY) {
  return harness.app.request(`${RELAY_ORIGIN}${path()}`, {
    method: 'POST',
    headers: {
      Origin: RELAY_ORIGIN,
      'Content-Type': 'application/json',
      ...bearer(handle),
      ...(key === null ? {} : { 'Idempotency-Key': key }),
      ...headers,
    },
    body,
  });
}

async function expectCoded(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('Content-Type')).toMatch(/^application\/json/);
  expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code);
}

describe('bad input gets a coded error, and nothing goes upstream', () => {
  for (const [what, request, status, code] of cases) {
    it(`${what} → ${status} ${code}`, async () => {
      const before = harness.simulator.counters.apiRequests;
      await expectCoded(await post(request), status, code);
      expect(harness.simulator.counters.apiRequests - before).toBe(0);
    });
  }

  for (const [what, key] of oddKeys) {
    it(`an Idempotency-Key ${what} → 400 bad_request`, async () => {
      const before = harness.simulator.counters.apiRequests;
      await expectCoded(
        await post({ path: messages, body: JSON.stringify({ text: 'hello' }) }, key),
        400,
        'bad_request',
      );
      expect(harness.simulator.counters.apiRequests - before).toBe(0);
    });
  }

  it('a 10 KB header of any other name does not get in the way of a good request, and is not echoed', async () => {
    const response = await post(
      {
        path: messages,
        body: JSON.stringify({ text: 'hello with a big header' }),
        headers: { 'X-Padding': 'p'.repeat(10 * 1024) },
      },
      'key-big-header-01',
    );
    expect(response.status).toBe(201);
    expect(JSON.stringify([...response.headers])).not.toContain('ppppppppppppppppppppppp');
  });

  it('a 10 KB Origin is forbidden_origin', async () => {
    const before = harness.simulator.counters.apiRequests;
    await expectCoded(
      await post({
        path: messages,
        body: JSON.stringify({ text: 'hello' }),
        headers: { Origin: `http://${'a'.repeat(10 * 1024)}.test` },
      }),
      403,
      'forbidden_origin',
    );
    expect(harness.simulator.counters.apiRequests - before).toBe(0);
  });

  it('no error body echoes what was sent', async () => {
    const response = await post({ path: messages, body: '{"text": "CANARY-ECHO-TEXT"' });
    expect(await response.text()).not.toContain('CANARY-ECHO-TEXT');
  });

  it('Object.prototype is untouched after every hostile body', () => {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
