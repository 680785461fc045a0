// A relay and its simulator on one injected clock, with every write that reaches the service counted, and conversations
// the practice has resolved: for tests of what each route does with a resolved conversation, within its grace and
// after it.
import { expect } from 'vitest';
import { MESSAGES } from '../../support/conversation-calls.ts';
import { readStream } from '../../support/live-stream.ts';
import { createMemoryStores } from '../../../src/relay/stores.ts';
import { createRelayHarness } from './relay-harness.ts';

/** The patient's own words, and the practice's reply: neither may appear in an answer once the grace is over. */
export const HISTORY = ['my biopsy results came back', 'We will call you about them'] as const;
export const MINUTE = 60_000;

/** What a call answered: its status and error code (a stream's: its last event's), and all it carried. */
export interface Answer {
  status: number;
  code: string | undefined;
  text: string;
}

export async function answerOf(response: Response): Promise<Answer> {
  const text = await response.text();
  let code: string | undefined;
  try {
    code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
  } catch {
    code = undefined;
  }
  return { status: response.status, code, text };
}

/** A stream's answer: its events up to the first error or status (then it is cancelled), as JSON. */
export async function streamAnswerOf(response: Response): Promise<Answer> {
  const opened = readStream(response);
  try {
    const last = await opened.next((event) => event.event === 'error' || event.event === 'status');
    const code = (last.data as { error?: { code?: string } } | undefined)?.error?.code;
    return { status: response.status, code, text: JSON.stringify(opened.events) };
  } finally {
    await opened.cancel();
  }
}

export const carriesHistory = (answer: Answer) => HISTORY.some((text) => answer.text.includes(text));

/**
 * `earlyAdmission`: stores that say their answers are round trips, as Redis's do, so that a conversation call asks the
 * read policy as it arrives (routes/handle-admission.ts), the path the relay takes with Redis; kept in memory here.
 */
export function createResolvedFixture({ earlyAdmission = false }: { earlyAdmission?: boolean } = {}) {
  let time = Date.parse('2026-11-22T10:00:00Z');
  /** How far the service's clock runs ahead of the relay's. */
  let serviceAheadMs = 0;
  const harness = createRelayHarness({
    now: () => time,
    simulator: { now: () => time + serviceAheadMs },
    ...(earlyAdmission ? { app: { shared: { stores: { ...createMemoryStores(() => time), roundTrips: true } } } } : {}),
  });
  let writes: string[] = [];
  let calls: string[] = [];
  const original = harness.simulator.fetch.bind(harness.simulator);
  harness.simulator.fetch = (input, init) => {
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    const path = new URL(input instanceof Request ? input.url : String(input)).pathname;
    if (path !== '/api/oauth/token/') calls.push(`${method} ${path}`);
    if (method !== 'GET' && path !== '/api/oauth/token/') writes.push(`${method} ${path}`);
    return original(input, init);
  };

  /** A conversation with the patient's words and a reply in it, resolved by the practice now. */
  async function resolvedConversation() {
    const before = new Set(harness.simulator.store.conversations.keys());
    const handle = await harness.startConversation();
    const upstreamId = [...harness.simulator.store.conversations.keys()].find((id) => !before.has(id))!;
    const sent = await harness.fromPanel(handle, MESSAGES, {
      body: { text: HISTORY[0] },
      headers: { 'Idempotency-Key': 'history-key-0001' },
    });
    expect(sent.status).toBe(201);
    harness.simulator.writeAs(upstreamId, 'agent', HISTORY[1]);
    await harness.resolveUpstream(upstreamId);
    writes = [];
    /** The service's record of the conversation as it is now. */
    const upstream = () => ({ ...harness.simulator.store.conversations.get(upstreamId)! });
    return { handle, upstreamId, upstream };
  }

  return {
    harness,
    resolvedConversation,
    advance: (ms: number) => {
      time += ms;
    },
    now: () => time,
    setServiceAhead: (ms: number) => {
      serviceAheadMs = ms;
    },
    /** The calls that could change the service (anything but a read or a token request) since the last resolve. */
    upstreamWrites: () => [...writes],
    /** Every call to the service but a token request, reads too, since the last `forgetUpstreamCalls`. */
    upstreamCalls: () => [...calls],
    forgetUpstreamCalls: () => {
      calls = [];
    },
    close: () => harness.close(),
  };
}
