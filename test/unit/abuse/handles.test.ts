// A handle is the only key to a conversation. Anything but a handle this relay sealed, unaltered and unexpired, is
// refused with session_expired, and costs no upstream call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandleSealer } from '../../../src/relay/conversations/handles.ts';
import { createRelayHarness } from '../relay/relay-harness.ts';

const SECRET = 'hA7b-Qz2Lm9Wx4Rt1Kc8Vn3Yp6Gd0Ej5Fs+Ub2Ho9Iw';
let clock = Date.now();
let harness: ReturnType<typeof createRelayHarness>;
let good: string;
let upstreamId: string;

beforeAll(async () => {
  harness = createRelayHarness({ now: () => clock, environment: { HANDLE_SECRET: SECRET, HANDLE_TTL_HOURS: '1' } });
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
  ['sealed by another relay (another HANDLE_SECRET)', () => createHandleSealer(secretBytes('another-secret-'.padEnd(40, 'y'))).seal({ clientId: 'demo-client', conversationId: upstreamId, expiresAt: clock + 3_600_000 })],
  ['sealed by another relay for another client id', () => createHandleSealer(secretBytes('another-secret-'.padEnd(40, 'z'))).seal({ clientId: 'smile-dental', conversationId: upstreamId, expiresAt: clock + 3_600_000 })],
  ['not base64url', () => `${good.slice(0, 10)}+.~${good.slice(13)}`],
  ['longer than any handle', () => 'A'.repeat(600)],
];

const routes = [
  ['GET messages', (handle: string) => harness.fromFrame(`/v1/conversations/${handle}/messages?after=0`, { headers: { 'X-Practice-Chat': '1' } })],
  ['POST messages', (handle: string) => harness.fromFrame(`/v1/conversations/${handle}/messages`, { body: { text: 'hello' }, headers: { 'Idempotency-Key': `key-${Math.random().toString(36).slice(2, 12)}` } })],
  ['POST escalate', (handle: string) => harness.fromFrame(`/v1/conversations/${handle}/escalate`, { body: {} })],
] as const;

describe('a handle that is not exactly one this relay sealed is refused, with no upstream call', () => {
  it('the genuine handle works (the control)', async () => {
    expect((await routes[0][1](good)).status).toBe(200);
  });

  for (const [what, make] of forged) {
    for (const [route, request] of routes) {
      it(`${route} with a handle ${what}: session_expired`, async () => {
        const before = harness.simulator.counters.apiRequests;
        const response = await request(make());
        expect(response.status).toBe(401);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe('session_expired');
        expect(harness.simulator.counters.apiRequests - before).toBe(0);
      });
    }
  }

  it('an expired handle, on every route', async () => {
    const saved = clock;
    clock += 61 * 60 * 1000;
    try {
      for (const [, request] of routes) {
        const before = harness.simulator.counters.apiRequests;
        const response = await request(good);
        expect(response.status).toBe(401);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe('session_expired');
        expect(harness.simulator.counters.apiRequests - before).toBe(0);
      }
    } finally {
      clock = saved;
    }
  });
});
