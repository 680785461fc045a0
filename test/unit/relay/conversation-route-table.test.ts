// Every route the relay answers under /v1/conversation, found in its own route table rather than listed here, driven
// with the handle of a conversation the practice resolved longer ago than the grace (and that the relay has not read
// since): each must answer the read policy's refusal, carry none of the history, write nothing upstream, and leave the
// handle retired. And driven with a handle End chat retired: each must answer that the handle is no longer valid
// without asking the service anything. A route added later without the policy fails this test without anyone adding
// it to a list; the last test shows that, with two such routes added to a relay.
import type { Context } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { createHandleSealer } from '../../../src/relay/conversations/handles.ts';
import { RESOLVED_READ_GRACE_MS } from '../../../src/relay/conversations/read-policy.ts';
import { createHandleClaims } from '../../../src/relay/routes/handle-claims.ts';
import { MESSAGES } from '../../support/conversation-calls.ts';
import {
  answerOf,
  carriesHistory,
  createResolvedFixture,
  HISTORY,
  MINUTE,
  streamAnswerOf,
} from './resolved-fixture.ts';

/** The calls on one conversation, each with its handle in Authorization. */
const CONVERSATION_PATH = /^\/v1\/conversation(\/|$)/;
/** End chat: its purpose is to retire the handle, which is what the policy does past the grace, so it answers 204. */
const END_CHAT = 'DELETE /v1/conversation';

let fixture: ReturnType<typeof createResolvedFixture>;
afterEach(() => fixture?.close());

/** Each method and path of the relay's table under /v1/conversation (middleware aside), once. */
function conversationRoutes(app: ReturnType<typeof createResolvedFixture>['harness']['app']): string[] {
  const routes = app.routes
    .filter((route) => route.method !== 'ALL' && CONVERSATION_PATH.test(route.path))
    .map((route) => `${route.method} ${route.path}`);
  return [...new Set(routes)];
}

/**
 * A well-formed body for each route that reads one, so that what a route answers is its policy's and not its parser's
 * (a route reads its request before it asks the service anything). A route not named here is sent `{}`: if it refuses
 * that, this test fails until it is given a body here, so no route is left unchecked.
 */
const BODIES: Record<string, unknown> = {
  'POST /v1/conversation/messages': { text: 'are you still there?' },
  'PUT /v1/conversation/language': { language: 'es' },
};

/** One call of `route` with `handle`, its body well-formed: what it answered, and whether that was a stream. */
async function call(route: string, handle: string) {
  const [method, path] = route.split(' ') as [string, string];
  const response = await fixture.harness.fromPanel(handle, path.replace(/:[^/]+/g, 'x'), {
    method,
    headers: { 'Idempotency-Key': `route-table-${Math.random().toString(36).slice(2, 12)}` },
    ...(method === 'GET' || method === 'DELETE' ? {} : { body: BODIES[route] ?? {} }),
  });
  const streamed = response.status === 200 && response.headers.get('Content-Type')?.startsWith('text/event-stream');
  return { streamed, answer: streamed ? await streamAnswerOf(response) : await answerOf(response) };
}

/** What is wrong with one route's handling of a resolved conversation past its grace: nothing, or the reasons. */
async function problemsOf(route: string): Promise<string[]> {
  const { handle, upstream } = await fixture.resolvedConversation();
  const resolved = upstream();
  fixture.advance(RESOLVED_READ_GRACE_MS + MINUTE);
  const { streamed, answer } = await call(route, handle);
  const problems: string[] = [];
  const refused =
    route === END_CHAT
      ? answer.status === 204
      : (answer.status === 409 || (streamed && answer.status === 200)) && answer.code === 'conversation_resolved';
  if (!refused) problems.push(`answered ${answer.status} ${answer.code ?? ''}, not the policy's refusal`);
  if (carriesHistory(answer)) problems.push('answered with the history');
  if (fixture.upstreamWrites().length > 0) problems.push(`wrote upstream: ${fixture.upstreamWrites().join(', ')}`);
  if (JSON.stringify(upstream()) !== JSON.stringify(resolved)) problems.push('changed the conversation upstream');
  const after = await answerOf(await fixture.harness.fromPanel(handle, `${MESSAGES}?after=0`));
  if (after.status !== 401) problems.push(`left the handle live (a poll after it answered ${after.status})`);
  return problems.map((problem) => `${route}: ${problem}`);
}

/** What is wrong with one route's handling of a handle End chat retired: nothing, or the reasons. */
async function retiredProblemsOf(route: string): Promise<string[]> {
  const { harness } = fixture;
  const handle = await harness.startConversation();
  const sent = await harness.fromPanel(handle, MESSAGES, {
    body: { text: HISTORY[0] },
    headers: { 'Idempotency-Key': `retired-${Math.random().toString(36).slice(2, 12)}` },
  });
  expect(sent.status).toBe(201);
  expect((await harness.fromPanel(handle, '/v1/conversation', { method: 'DELETE' })).status).toBe(204);
  fixture.forgetUpstreamCalls();
  const { answer } = await call(route, handle);
  const problems: string[] = [];
  if (answer.status !== 401 || answer.code !== 'session_expired')
    problems.push(`answered ${answer.status} ${answer.code ?? ''}, not session_expired`);
  if (carriesHistory(answer)) problems.push('answered with the history');
  if (fixture.upstreamCalls().length > 0) problems.push(`asked the service: ${fixture.upstreamCalls().join(', ')}`);
  return problems.map((problem) => `${route} (retired): ${problem}`);
}

/** Each pass runs on both of the relay's ways to ask the policy: after the quota (in memory), and as a call arrives. */
const ADMISSION_PATHS: Array<[string, boolean]> = [
  ['', false],
  [', with the policy asked as each call arrives (the path with Redis)', true],
];

describe('the route table: every call on a conversation goes through the read policy', () => {
  it.each(ADMISSION_PATHS)(
    'each route under /v1/conversation refuses a conversation resolved past its grace, and writes nothing upstream%s',
    async (_, earlyAdmission) => {
      fixture = createResolvedFixture({ earlyAdmission });
      const routes = conversationRoutes(fixture.harness.app);
      // The table is read, not listed: these are what it holds today, and any route added later is checked as well.
      expect(routes).toEqual(
        expect.arrayContaining([
          'GET /v1/conversation/messages',
          'POST /v1/conversation/messages',
          'GET /v1/conversation/events',
          'POST /v1/conversation/escalate',
          'PUT /v1/conversation/language',
          END_CHAT,
        ]),
      );
      const problems: string[] = [];
      for (const route of routes) problems.push(...(await problemsOf(route)));
      expect(problems).toEqual([]);
    },
  );

  it.each(ADMISSION_PATHS)(
    'each route under /v1/conversation refuses a handle End chat retired, and asks the service nothing%s',
    async (_, earlyAdmission) => {
      fixture = createResolvedFixture({ earlyAdmission });
      const routes = conversationRoutes(fixture.harness.app);
      expect(routes).toContain(END_CHAT);
      const problems: string[] = [];
      for (const route of routes) problems.push(...(await retiredProblemsOf(route)));
      expect(problems).toEqual([]);
    },
  );

  it('a route added without the policy is caught: one that writes upstream, one that reads the history', async () => {
    fixture = createResolvedFixture();
    const { harness } = fixture;
    // What a route that decided on its own would do: open the handle, and go straight to the service.
    const claimsOf = createHandleClaims(createHandleSealer(harness.settings.handleSecret, fixture.now));
    harness.app.put('/v1/conversation/subject', async (c: Context) => {
      await harness.editUpstream(claimsOf(c).conversationId, { subject: 'from the patient' });
      return c.body(null, 204);
    });
    harness.app.get('/v1/conversation/transcript', (c: Context) =>
      c.json(harness.simulator.store.messages.get(claimsOf(c).conversationId)),
    );
    const retired: string[] = [];
    for (const route of ['PUT /v1/conversation/subject', 'GET /v1/conversation/transcript'])
      retired.push(...(await retiredProblemsOf(route)));
    expect(retired).toEqual([
      expect.stringMatching(/^PUT \/v1\/conversation\/subject \(retired\): answered 204 , not session_expired$/),
      expect.stringMatching(/^PUT \/v1\/conversation\/subject \(retired\): asked the service: PATCH /),
      expect.stringMatching(/^GET \/v1\/conversation\/transcript \(retired\): answered 200 , not session_expired$/),
      'GET /v1/conversation/transcript (retired): answered with the history',
    ]);
    const problems: string[] = [];
    for (const route of conversationRoutes(harness.app)) problems.push(...(await problemsOf(route)));
    expect(problems).toEqual([
      expect.stringMatching(/^PUT \/v1\/conversation\/subject: answered 204 , not the policy's refusal$/),
      expect.stringMatching(/^PUT \/v1\/conversation\/subject: wrote upstream: PATCH /),
      'PUT /v1/conversation/subject: changed the conversation upstream',
      expect.stringMatching(/^PUT \/v1\/conversation\/subject: left the handle live/),
      expect.stringMatching(/^GET \/v1\/conversation\/transcript: answered 200 , not the policy's refusal$/),
      'GET /v1/conversation/transcript: answered with the history',
      expect.stringMatching(/^GET \/v1\/conversation\/transcript: left the handle live/),
    ]);
  });
});
