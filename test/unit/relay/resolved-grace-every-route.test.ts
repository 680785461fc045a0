// After a resolved conversation's grace, no call on any route (the language, a send, an escalation, End chat, the
// poll, the stream), in any order, reads its history; and no write upstream, by the relay or by staff, starts the
// grace again. Each route is driven through the relay with the simulator behind it and one injected clock for both,
// and every write that reaches the service is counted.
import { afterEach, describe, expect, it } from 'vitest';
import { RESOLVED_READ_GRACE_MS } from '../../../src/relay/conversations/read-policy.ts';
import { CONVERSATION, ESCALATE, MESSAGES } from '../../support/conversation-calls.ts';
import {
  type Answer,
  answerOf,
  carriesHistory,
  createResolvedFixture,
  HISTORY,
  MINUTE,
  streamAnswerOf,
} from './resolved-fixture.ts';

const LANGUAGE = '/v1/conversation/language';
const EVENTS = '/v1/conversation/events';

type Route = 'language' | 'send' | 'escalate' | 'end' | 'poll' | 'stream';
const ROUTES: Route[] = ['language', 'send', 'escalate', 'end', 'poll', 'stream'];

let fixture: ReturnType<typeof createResolvedFixture>;
afterEach(() => fixture?.close());
const fromPanel: ReturnType<typeof createResolvedFixture>['harness']['fromPanel'] = (...args) =>
  fixture.harness.fromPanel(...args);

let keys = 0;
const call: Record<Route, (handle: string) => Promise<Answer>> = {
  language: async (handle) => answerOf(await fromPanel(handle, LANGUAGE, { method: 'PUT', body: { language: 'es' } })),
  send: async (handle) =>
    answerOf(
      await fromPanel(handle, MESSAGES, {
        body: { text: 'are you still there?' },
        headers: { 'Idempotency-Key': `later-key-${++keys}` },
      }),
    ),
  escalate: async (handle) => answerOf(await fromPanel(handle, ESCALATE, { body: {} })),
  end: async (handle) => answerOf(await fromPanel(handle, CONVERSATION, { method: 'DELETE' })),
  poll: async (handle) => answerOf(await fromPanel(handle, `${MESSAGES}?after=0`)),
  stream: async (handle) => {
    const response = await fromPanel(handle, `${EVENTS}?after=0`);
    return response.status === 200 ? streamAnswerOf(response) : answerOf(response);
  },
};

/**
 * A call the policy refused: resolved (409, or a stream's error event), or the handle retired since (401). End chat
 * retires the handle whatever the conversation's state, so its 204 is a refusal too: it opens nothing.
 */
function expectRefused(route: Route, answer: Answer) {
  expect(carriesHistory(answer), `${route} answered with the history`).toBe(false);
  const refusal =
    (answer.status === 409 && answer.code === 'conversation_resolved') ||
    (answer.status === 401 && answer.code === 'session_expired') ||
    (route === 'stream' && answer.status === 200 && answer.code === 'conversation_resolved') ||
    (route === 'end' && answer.status === 204);
  expect(refusal, `${route} answered ${answer.status} ${answer.code ?? ''}`).toBe(true);
}

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, index) =>
    permutations([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [item, ...rest]),
  );
}

describe('after the grace, no route reads a resolved conversation, whichever comes first', () => {
  it.each(ROUTES)(
    '%s first, on a conversation the relay has not seen resolved: refused, nothing written upstream, and then every route refuses',
    async (first) => {
      fixture = createResolvedFixture();
      const { handle, upstream } = await fixture.resolvedConversation();
      const resolved = upstream();
      fixture.advance(RESOLVED_READ_GRACE_MS + MINUTE);
      expectRefused(first, await call[first](handle));
      for (const route of ROUTES) expectRefused(route, await call[route](handle));
      expect(fixture.upstreamWrites()).toEqual([]);
      expect(upstream()).toEqual(resolved);
    },
  );

  it('in every order of the six routes, none answers with the history and nothing is written upstream', async () => {
    fixture = createResolvedFixture();
    const orders = permutations(ROUTES);
    expect(orders).toHaveLength(720);
    for (const order of orders) {
      const { handle, upstream } = await fixture.resolvedConversation();
      const resolved = upstream();
      fixture.advance(RESOLVED_READ_GRACE_MS + MINUTE);
      for (const route of order) expectRefused(route, await call[route](handle));
      expect(fixture.upstreamWrites(), order.join(', ')).toEqual([]);
      expect(upstream()).toEqual(resolved);
    }
  }, 120_000);
});

describe('nothing written after the resolution starts the grace again', () => {
  it('the language within the grace is refused and writes nothing, so the grace ends on time', async () => {
    fixture = createResolvedFixture();
    const { handle, upstream } = await fixture.resolvedConversation();
    const resolved = upstream();
    fixture.advance(5 * MINUTE);
    // The relay has not read the conversation since it was resolved: the language is the first to find out.
    const switched = await call.language(handle);
    expect([switched.status, switched.code]).toEqual([409, 'conversation_resolved']);
    expect(fixture.upstreamWrites()).toEqual([]);
    expect(upstream()).toEqual(resolved);
    // Still within the grace: the panel reads the last replies and the notice.
    const within = await call.poll(handle);
    expect(within.status).toBe(200);
    expect(within.text).toContain(HISTORY[0]);

    fixture.advance(RESOLVED_READ_GRACE_MS - 5 * MINUTE + MINUTE);
    for (const route of ROUTES) expectRefused(route, await call[route](handle));
  });

  it('every write within the grace is refused before it reaches the service', async () => {
    fixture = createResolvedFixture();
    const { handle, upstream } = await fixture.resolvedConversation();
    const resolved = upstream();
    fixture.advance(5 * MINUTE);
    expect((await call.poll(handle)).status).toBe(200);
    for (const route of ['language', 'send', 'escalate'] as const) {
      const answer = await call[route](handle);
      expect({ route, status: answer.status, code: answer.code }).toEqual({
        route,
        status: 409,
        code: 'conversation_resolved',
      });
    }
    expect(fixture.upstreamWrites()).toEqual([]);
    expect(upstream()).toEqual(resolved);
  });

  it('a staff edit after the relay saw the resolution does not move the grace', async () => {
    fixture = createResolvedFixture();
    const { handle, upstreamId, upstream } = await fixture.resolvedConversation();
    fixture.advance(5 * MINUTE);
    expect((await call.poll(handle)).status).toBe(200);
    // Staff give the case a subject: the service's updated_at is now, ten minutes before the grace would end.
    await fixture.harness.editUpstream(upstreamId, { subject: 'Biopsy, call back' });
    expect(Date.parse(upstream().updated_at)).toBe(fixture.now());

    fixture.advance(RESOLVED_READ_GRACE_MS - 5 * MINUTE + MINUTE);
    for (const route of ROUTES) expectRefused(route, await call[route](handle));
  });

  it("a service clock ahead of the relay's does not lengthen the grace", async () => {
    fixture = createResolvedFixture();
    // Resolved by a service whose clock runs ten minutes ahead: its updated_at is ten minutes in the relay's future.
    fixture.setServiceAhead(10 * MINUTE);
    const { handle } = await fixture.resolvedConversation();
    fixture.setServiceAhead(0);
    expect((await call.poll(handle)).status).toBe(200);

    fixture.advance(RESOLVED_READ_GRACE_MS + MINUTE);
    for (const route of ROUTES) expectRefused(route, await call[route](handle));
  });
});
