// A handle is the only key to a conversation. Anything but a handle this relay sealed, unaltered and unexpired, sent
// exactly as `Authorization: Bearer HANDLE`, is refused with session_expired, and costs no upstream call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandleSealer } from '../../../src/relay/conversations/handles.ts';
import { createRelayHarness } from '../relay/relay-harness.ts';
import { CONVERSATION, ESCALATE, MESSAGES } from '../../support/conversation-calls.ts';

const SECRET = 'hA7b-Qz2Lm9Wx4Rt1Kc8Vn3Yp6Gd0Ej5Fs+Ub2Ho9Iw';
let clock = Date.now();
let harness: ReturnType<typeof createRelayHarness>;
let good: string;
let upstreamId: string;

beforeAll(async () => {
  // Quotas raised: the header cases below start a conversation each.
  harness = createRelayHarness({
    now: () => clock,
    environment: {
      HANDLE_SECRET: SECRET,
      HANDLE_TTL_HOURS: '1',
      CONVERSATIONS_PER_HOUR_PER_IP: '1000',
      REQUESTS_PER_MINUTE_PER_IP: '10000',
    },
  });
  good = await harness.startConversation();
  upstreamId = [...harness.simulator.store.conversations.keys()][0]!;
});
afterAll(() => harness.close());

const flip = (handle: string, index: number) => {
  const bytes = Buffer.from(handle, 'base64url');
  bytes[index] = (bytes[index] ?? 0) ^ 1;
  return bytes.toString('base64url');
};
const secretBytes = (secret: string) => new TextEncoder().encode(secret);

const forged: Array<[string, () => string]> = [
  ['one bit flipped in the nonce', () => flip(good, 0)],
  ['one bit flipped in the sealed claims', () => flip(good, 20)],
  ['one bit flipped in the tag', () => flip(good, Buffer.from(good, 'base64url').length - 1)],
  ['truncated by one character', () => good.slice(0, -1)],
  ['truncated to half', () => good.slice(0, Math.floor(good.length / 2))],
  ['with a character added', () => `${good}A`],
  ['made up', () => 'A'.repeat(good.length)],
  ['the upstream conversation id itself', () => upstreamId],
  [
    'sealed by another relay (another HANDLE_SECRET)',
    () =>
      createHandleSealer(secretBytes('another-secret-'.padEnd(40, 'y'))).seal({
        clientId: 'demo-client',
        conversationId: upstreamId,
        expiresAt: clock + 3_600_000,
      }),
  ],
  [
    'sealed by another relay for another client id',
    () =>
      createHandleSealer(secretBytes('another-secret-'.padEnd(40, 'z'))).seal({
        clientId: 'smile-dental',
        conversationId: upstreamId,
        expiresAt: clock + 3_600_000,
      }),
  ],
  ['not base64url', () => `${good.slice(0, 10)}+.~${good.slice(13)}`],
  ['longer than any handle', () => 'A'.repeat(600)],
];

/** Each conversation call, with the Authorization header given whole (the handle alone: `Bearer HANDLE`). */
const routesWithHeader = [
  [
    'GET messages',
    (authorization?: string) =>
      harness.fromFrame(`${MESSAGES}?after=0`, { headers: { 'X-Practice-Chat': '1', ...header(authorization) } }),
  ],
  [
    'POST messages',
    (authorization?: string) =>
      harness.fromFrame(MESSAGES, {
        body: { text: 'hello' },
        headers: { 'Idempotency-Key': `key-${Math.random().toString(36).slice(2, 12)}`, ...header(authorization) },
      }),
  ],
  [
    'POST escalate',
    (authorization?: string) => harness.fromFrame(ESCALATE, { body: {}, headers: header(authorization) }),
  ],
  [
    'DELETE (End chat)',
    (authorization?: string) => harness.fromFrame(CONVERSATION, { method: 'DELETE', headers: header(authorization) }),
  ],
] as const;
function header(authorization: string | undefined): Record<string, string> {
  return authorization === undefined ? {} : { Authorization: authorization };
}
const routes = routesWithHeader.map(
  ([name, request]) => [name, (handle: string) => request(`Bearer ${handle}`)] as const,
);

async function expectRefused(response: Response, before: number) {
  expect(response.status).toBe(401);
  // RFC 9110: a 401 names the scheme that would do.
  expect(response.headers.get('WWW-Authenticate')).toBe('Bearer');
  expect(((await response.json()) as { error: { code: string } }).error.code).toBe('session_expired');
  expect(harness.simulator.counters.apiRequests - before).toBe(0);
}

describe('a handle that is not exactly one this relay sealed is refused, with no upstream call', () => {
  it('the genuine handle works (the control), with the scheme in any case', async () => {
    expect((await routesWithHeader[0][1](`Bearer ${good}`)).status).toBe(200);
    expect((await routesWithHeader[0][1](`bearer ${good}`)).status).toBe(200);
    expect((await routesWithHeader[0][1](`BEARER ${good}`)).status).toBe(200);
  });

  for (const [what, make] of forged) {
    for (const [route, request] of routes) {
      it(`${route} with a handle ${what}: session_expired`, async () => {
        const before = harness.simulator.counters.apiRequests;
        await expectRefused(await request(make()), before);
      });
    }
  }

  it('an expired handle, on every route', async () => {
    const saved = clock;
    clock += 61 * 60 * 1000;
    try {
      for (const [, request] of routes) {
        const before = harness.simulator.counters.apiRequests;
        await expectRefused(await request(good), before);
      }
    } finally {
      clock = saved;
    }
  });
});

describe('the Authorization header is exactly `Bearer <handle>`, or the call is refused before any crypto or upstream call', () => {
  // fetch trims a header's leading and trailing whitespace (so does Node's HTTP parser), so those are not cases here.
  const malformed: Array<[string, (handle: string) => string | undefined]> = [
    ['missing', () => undefined],
    ['empty', () => ''],
    ['the handle alone, without a scheme', (handle) => handle],
    ['another scheme (Basic)', (handle) => `Basic ${handle}`],
    ['another scheme that starts alike (Bearerx)', (handle) => `Bearerx ${handle}`],
    ['the scheme without a handle', () => 'Bearer'],
    ['two spaces after the scheme', (handle) => `Bearer  ${handle}`],
    ['a tab after the scheme', (handle) => `Bearer\t${handle}`],
    ['no space after the scheme', (handle) => `Bearer${handle}`],
    ['the handle twice (a repeated header, joined by fetch)', (handle) => `Bearer ${handle}, Bearer ${handle}`],
    ['something after the handle', (handle) => `Bearer ${handle} extra`],
    ['an auth-param after the handle', (handle) => `Bearer ${handle},realm="x"`],
    ['base64 padding', (handle) => `Bearer ${handle}=`],
    ['a quoted handle', (handle) => `Bearer "${handle}"`],
    ['a percent-encoded handle', (handle) => `Bearer ${encodeURIComponent(`${handle}/`)}`],
    ['a header longer than any handle', () => `Bearer ${'A'.repeat(10_000)}`],
  ];

  for (const [what, make] of malformed) {
    for (const [route, request] of routesWithHeader) {
      it(`${route} with an Authorization header ${what}: session_expired`, async () => {
        // A handle of its own, so that a header wrongly accepted (End chat retires the handle) cannot hide another case.
        const handle = await harness.startConversation();
        const before = harness.simulator.counters.apiRequests;
        await expectRefused(await request(make(handle)), before);
        // The control: the same handle, sent properly, still works.
        expect((await routesWithHeader[0][1](`Bearer ${handle}`)).status).toBe(200);
      });
    }
  }
});
