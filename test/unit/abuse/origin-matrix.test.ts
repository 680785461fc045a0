// Only the frame's own requests are served on conversation routes: every route × every kind of caller a hostile page
// or a script can produce. A refused request costs no upstream call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelayHarness, RELAY_ORIGIN } from '../relay/relay-harness.ts';
import { bearer, CONVERSATION, ESCALATE, MESSAGES } from '../../support/conversation-calls.ts';

let harness: ReturnType<typeof createRelayHarness>;
let handle: string;
/** Ended by the frame's own End chat in the matrix, so the other routes keep theirs. */
let toEnd: string;
beforeAll(async () => {
  harness = createRelayHarness();
  handle = await harness.startConversation();
  toEnd = await harness.startConversation();
});
afterAll(() => harness.close());

const upstreamCalls = () => harness.simulator.counters.apiRequests;

interface Route {
  name: string;
  method: 'GET' | 'POST' | 'DELETE';
  path: () => string;
  body: () => string;
  /** The handle's header; every caller holds the handle, so that the origin rules alone must refuse it. */
  auth: () => Record<string, string>;
  /** What the frame's own call answers. */
  served: number;
}

const routes: Route[] = [
  {
    name: 'POST /v1/conversations',
    method: 'POST',
    path: () => '/v1/conversations',
    body: () => JSON.stringify({ client_id: 'demo-client' }),
    auth: () => ({}),
    served: 201,
  },
  {
    name: 'POST messages',
    method: 'POST',
    path: () => MESSAGES,
    body: () => JSON.stringify({ text: 'hello' }),
    auth: () => bearer(handle),
    served: 201,
  },
  {
    name: 'GET messages',
    method: 'GET',
    path: () => `${MESSAGES}?after=0`,
    body: () => '',
    auth: () => bearer(handle),
    served: 200,
  },
  {
    name: 'POST escalate',
    method: 'POST',
    path: () => ESCALATE,
    body: () => '{}',
    auth: () => bearer(handle),
    served: 200,
  },
  {
    name: 'DELETE (End chat)',
    method: 'DELETE',
    path: () => CONVERSATION,
    body: () => '',
    auth: () => bearer(toEnd),
    served: 204,
  },
];

/** Headers a caller sends; `undefined` removes a header. */
type Caller = {
  name: string;
  headers: Record<string, string | undefined> /** The frame's own request. */;
  frame?: boolean;
};

const json = { 'Content-Type': 'application/json' };
const frameRead = { 'X-Practice-Chat': '1' };

const callers: Caller[] = [
  { name: 'the frame (same origin)', headers: { Origin: RELAY_ORIGIN, ...json, ...frameRead }, frame: true },
  { name: 'another origin', headers: { Origin: 'https://evil.test', ...json, ...frameRead } },
  { name: 'Origin: null (sandboxed frame, data: URL)', headers: { Origin: 'null', ...json, ...frameRead } },
  { name: 'no Origin and no frame header (curl, a server)', headers: { ...json } },
  {
    name: 'look-alike: the relay host as a subdomain of another',
    headers: { Origin: 'http://relay.test.evil.test', ...json, ...frameRead },
  },
  { name: 'look-alike: localhost.evil.test', headers: { Origin: 'http://localhost.evil.test', ...json, ...frameRead } },
  {
    name: 'look-alike: a suffix (evilrelay.test)',
    headers: { Origin: 'http://evilrelay.test', ...json, ...frameRead },
  },
  { name: 'look-alike: a prefix (relay.testing)', headers: { Origin: 'http://relay.testing', ...json, ...frameRead } },
  { name: 'look-alike: another scheme', headers: { Origin: 'https://relay.test', ...json, ...frameRead } },
  { name: 'look-alike: another port', headers: { Origin: 'http://relay.test:8080', ...json, ...frameRead } },
  { name: 'look-alike: a trailing slash', headers: { Origin: `${RELAY_ORIGIN}/`, ...json, ...frameRead } },
  { name: 'look-alike: with credentials', headers: { Origin: 'http://user@relay.test', ...json, ...frameRead } },
  {
    name: 'a simple cross-origin GET (img, script, fetch no-cors)',
    headers: { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'no-cors' },
  },
  { name: 'a cross-site read that names the frame header', headers: { 'Sec-Fetch-Site': 'cross-site', ...frameRead } },
  { name: 'a same-site (not same-origin) read', headers: { 'Sec-Fetch-Site': 'same-site', ...frameRead } },
  {
    name: 'a cross-site form POST',
    headers: {
      Origin: 'https://evil.test',
      'Content-Type': 'application/x-www-form-urlencoded',
      'Sec-Fetch-Site': 'cross-site',
    },
  },
  {
    name: 'navigator.sendBeacon from another site',
    headers: { Origin: 'https://evil.test', 'Content-Type': 'text/plain;charset=UTF-8', 'Sec-Fetch-Mode': 'no-cors' },
  },
  {
    name: 'a text/plain body from another site',
    headers: { Origin: 'https://evil.test', 'Content-Type': 'text/plain' },
  },
  {
    name: 'a multipart body from another site',
    headers: { Origin: 'https://evil.test', 'Content-Type': 'multipart/form-data; boundary=x' },
  },
];

async function call(route: Route, caller: Caller) {
  const headers: Record<string, string> = route.auth();
  for (const [name, value] of Object.entries(caller.headers)) if (value !== undefined) headers[name] = value;
  if (route.method === 'POST') headers['Idempotency-Key'] = crypto.randomUUID();
  return harness.app.request(`${RELAY_ORIGIN}${route.path()}`, {
    method: route.method,
    headers,
    ...(route.method === 'POST' ? { body: route.body() } : {}),
  });
}

describe("only the frame's own requests are served on conversation routes", () => {
  for (const route of routes) {
    for (const caller of callers) {
      it(`${route.name} from ${caller.name}: ${caller.frame ? 'served' : 'forbidden_origin, no upstream call'}`, async () => {
        const before = upstreamCalls();
        const response = await call(route, caller);
        if (caller.frame) {
          expect(response.status).toBe(route.served);
          return;
        }
        expect(response.status).toBe(403);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe('forbidden_origin');
        expect(upstreamCalls() - before).toBe(0);
      });
    }
  }

  for (const route of routes.filter((candidate) => candidate.method === 'POST')) {
    for (const [type, body] of [
      ['text/plain (sendBeacon, a simple fetch)', 'text/plain;charset=UTF-8'],
      ['a form', 'application/x-www-form-urlencoded'],
      ['multipart', 'multipart/form-data; boundary=x'],
      ['no content type', undefined],
      ['JSON look-alike', 'application/jsonx'],
    ] as const) {
      it(`${route.name} from the relay's own origin with ${type}: unsupported_media_type, no upstream call`, async () => {
        const before = upstreamCalls();
        const response = await call(route, { name: type, headers: { Origin: RELAY_ORIGIN, 'Content-Type': body } });
        expect(response.status).toBe(415);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unsupported_media_type');
        expect(upstreamCalls() - before).toBe(0);
      });
    }
  }
});

// A cross-origin page can send the handle's Authorization header (or the frame's own header) only once the relay has
// approved a CORS preflight for it. It approves none: not on conversation calls, not on the configuration, which any
// origin may read but which never echoes the headers a request asks for.
describe('no CORS preflight is approved, least of all for Authorization', () => {
  const preflighted: Array<[string, string]> = [
    ['POST', MESSAGES],
    ['GET', `${MESSAGES}?after=0`],
    ['POST', ESCALATE],
    ['DELETE', CONVERSATION],
    ['POST', '/v1/conversations'],
    ['GET', '/v1/webchat-configuration?client_id=demo-client'],
    ['GET', '/v1/conversations/HANDLE/messages?after=0'],
  ];
  const asked = ['authorization', 'authorization, content-type, idempotency-key, x-practice-chat'];
  const origins = ['https://evil.test', 'http://localhost:3000', 'null'];

  for (const [method, path] of preflighted) {
    for (const headers of asked) {
      it(`OPTIONS ${path} for ${method} with ${headers}: not approved for any origin`, async () => {
        for (const origin of origins) {
          const before = upstreamCalls();
          const response = await harness.app.request(`${RELAY_ORIGIN}${path}`, {
            method: 'OPTIONS',
            headers: {
              Origin: origin,
              'Access-Control-Request-Method': method,
              'Access-Control-Request-Headers': headers,
            },
          });
          // A preflight passes only with an ok status and the headers allowed: neither is given.
          expect(response.status).toBeGreaterThanOrEqual(400);
          const granted = [...response.headers.keys()].filter((name) => name.startsWith('access-control-'));
          expect(granted).toEqual([]);
          expect(upstreamCalls() - before).toBe(0);
        }
      });
    }
  }

  it('the configuration, readable by any origin, allows no request header and no credentials', async () => {
    const response = await harness.app.request(`${RELAY_ORIGIN}/v1/webchat-configuration?client_id=demo-client`, {
      headers: {
        Origin: 'https://evil.test',
        'Access-Control-Request-Headers': 'authorization',
        Authorization: 'Bearer x',
      },
    });
    expect(response.status).toBe(200);
    const granted = Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('access-control-')));
    expect(granted).toEqual({ 'access-control-allow-origin': '*' });
  });
});
