// A create whose answer the service lost is adopted only on proof that the conversation found is its own. The service
// stores each create and answers 502 (a gateway that lost the service's answer); the relay, on the simulator over
// real HTTP, must then either prove which conversation is the create's or answer a coded retryable error. A service
// that ignores `client_reference`, filter and field alike (as Django REST Framework ignores what it does not know),
// answers a look-up with the practice's conversations, other patients' first: none of those may ever be handed out.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createPrometheusMetrics } from '../../../src/relay/metrics/prometheus.ts';
import { accessToken } from '../simulator/helpers.ts';
import { bearer, MESSAGES } from '../../support/conversation-calls.ts';
import { FIXTURE_DIST, startProduct } from '../../support/product.ts';

const LOST_CREATES = 20;
const OTHER_PATIENTS = 3;
const ROOMY = {
  REQUESTS_PER_MINUTE_PER_IP: '1000000',
  CONVERSATIONS_PER_HOUR_PER_IP: '1000000',
  MESSAGES_PER_MINUTE_PER_CONVERSATION: '1000000',
};
/** Every create is stored, then answered 502; nothing else fails. */
const CREATE_THEN_502 = { badGatewayAfterHandlingRate: 1, match: /^\/api\/conversations\/$/, methods: ['POST'] };

type Product = Awaited<ReturnType<typeof startProduct>>;
let product: Product | undefined;
afterEach(async () => {
  await product?.close();
  product = undefined;
});

async function start() {
  const prometheus = createPrometheusMetrics();
  product = await startProduct({
    distDir: FIXTURE_DIST,
    environment: ROOMY,
    simulator: { randomSeed: 36 },
    metrics: prometheus.metrics,
  });
  const relayUrl = product.relayUrl;
  /** A call as the relay's own frame makes it. */
  const call = (path: string, init: { body?: unknown; headers?: Record<string, string> } = {}) =>
    fetch(`${relayUrl}${path}`, {
      method: init.body === undefined ? 'GET' : 'POST',
      headers: { Origin: relayUrl, 'Content-Type': 'application/json', 'X-Practice-Chat': 'frame', ...init.headers },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
  return { product, call, scrape: () => prometheus.registry.metrics() };
}
type Started = Awaited<ReturnType<typeof start>>;

const create = (call: Started['call'], key: string | undefined, clientId = 'demo-client') =>
  call('/v1/conversations', {
    body: { client_id: clientId },
    headers: key === undefined ? {} : { 'Idempotency-Key': key },
  });

async function send(call: Started['call'], handle: string, text: string) {
  const sent = await call(MESSAGES, {
    body: { text },
    headers: { ...bearer(handle), 'Idempotency-Key': randomUUID() },
  });
  expect(sent.status).toBe(201);
}

async function readTexts(call: Started['call'], handle: string): Promise<string[]> {
  const read = await call(`${MESSAGES}?after=0`, { headers: bearer(handle) });
  expect(read.status).toBe(200);
  return ((await read.json()) as { messages: { text: string }[] }).messages.map((message) => message.text);
}

/** Other patients' conversations in the practice, each holding a note its own handle reads. */
async function otherPatients({ call }: Started): Promise<string[]> {
  const notes: string[] = [];
  for (let index = 0; index < OTHER_PATIENTS; index++) {
    const created = await create(call, randomUUID());
    expect(created.status).toBe(201);
    const { conversation: handle } = (await created.json()) as { conversation: string };
    const note = `other patient ${index}: private note ${randomUUID()}`;
    await send(call, handle, note);
    // Readable: a handle to this conversation would show it.
    expect(await readTexts(call, handle)).toContain(note);
    notes.push(note);
  }
  return notes;
}

interface LostCreate {
  /** Each answer the relay gave this visitor: the first try, and for a keyed create its retry with the key. */
  answers: { status: number; code?: string; retryAfter: number | null; handle?: string }[];
  /** The upstream conversations this visitor's tries created. */
  own: string[];
  /** Handles answered that opened a conversation this visitor's tries did not create. */
  foreign: number;
}

/**
 * Twenty lost creates, one after the other so that each one's conversations are known, half with an Idempotency-Key
 * (tried, then retried with the key) and half without. A handle answered is checked two ways: it must not read
 * another patient's note, and a message sent through it must land in a conversation this visitor created.
 */
async function loseCreates({ call, product }: Started, notes: readonly string[]): Promise<LostCreate[]> {
  const visitors: LostCreate[] = [];
  for (let index = 0; index < LOST_CREATES; index++) {
    const key = index % 2 === 0 ? randomUUID() : undefined;
    const before = new Set(product.simulator.store.conversations.keys());
    const answers: LostCreate['answers'] = [];
    for (let attempt = 0; attempt < (key === undefined ? 1 : 2); attempt++) {
      const response = await create(call, key);
      const body = (await response.json()) as { conversation?: string; error?: { code: string } };
      answers.push({
        status: response.status,
        retryAfter: response.headers.get('Retry-After') === null ? null : Number(response.headers.get('Retry-After')),
        ...(body.error === undefined ? {} : { code: body.error.code }),
        ...(body.conversation === undefined ? {} : { handle: body.conversation }),
      });
    }
    const own = [...product.simulator.store.conversations.keys()].filter((id) => !before.has(id));
    let foreign = 0;
    for (const { handle } of answers) {
      if (handle === undefined) continue;
      const texts = await readTexts(call, handle);
      const canary = `visitor ${index} canary ${randomUUID()}`;
      await send(call, handle, canary);
      const landedIn = [...product.simulator.store.messages].find(([, messages]) =>
        messages.some((message) => message.text === canary),
      )?.[0];
      if (texts.some((text) => notes.includes(text)) || landedIn === undefined || !own.includes(landedIn)) foreign++;
    }
    visitors.push({ answers, own, foreign });
  }
  return visitors;
}

describe('a create whose answer was lost (stored upstream, answered 502)', () => {
  it(`a service that ignores client_reference: ${LOST_CREATES} lost creates adopt no other patient's conversation`, async () => {
    const started = await start();
    const notes = await otherPatients(started);
    started.product.simulator.faults.set({ ...CREATE_THEN_502, ignoreClientReference: true });
    const visitors = await loseCreates(started, notes);

    const answers = visitors.flatMap((visitor) => visitor.answers);
    console.log(
      `lost creates against a service that ignores client_reference: ${answers.filter((answer) => answer.status === 201).length} of ${answers.length} answers handed out a conversation, ${visitors.reduce((sum, visitor) => sum + visitor.foreign, 0)} another patient's`,
    );
    expect(visitors.map((visitor) => visitor.foreign)).toEqual(Array(LOST_CREATES).fill(0));
    // Nothing proves which conversation is whose: every try is answered the coded retryable error, never a handle.
    for (const answer of answers) {
      expect(answer).toMatchObject({ status: 503, code: 'upstream_unavailable' });
      expect(answer.retryAfter).toBeGreaterThanOrEqual(1);
    }
    // A keyed retry is never a create blind while its first try may have landed: one conversation per visitor.
    expect(visitors.map((visitor) => visitor.own.length)).toEqual(Array(LOST_CREATES).fill(1));
    // The other patients' notes are where they were, and only there.
    for (const note of notes) {
      const holding = [...started.product.simulator.store.messages.values()].filter((messages) =>
        messages.some((message) => message.text === note),
      );
      expect(holding).toHaveLength(1);
    }
  }, 120_000);

  it(`a service that honours it: each of ${LOST_CREATES} lost creates gets its own conversation, once`, async () => {
    const started = await start();
    const notes = await otherPatients(started);
    started.product.simulator.faults.set(CREATE_THEN_502);
    const visitors = await loseCreates(started, notes);

    for (const visitor of visitors) {
      expect(visitor.foreign).toBe(0);
      // No duplicate, no empty extra: one conversation for the visitor's tries, and every answer hands it out.
      expect(visitor.own).toHaveLength(1);
      expect(visitor.answers.map((answer) => answer.status)).toEqual(visitor.answers.map(() => 201));
      expect(new Set(visitor.answers.map((answer) => answer.handle)).size).toBe(1);
    }
    const conversations = [...started.product.simulator.store.messages.values()];
    expect(conversations.filter((messages) => messages.length === 0)).toHaveLength(0);
    const metrics = await started.scrape();
    expect(metrics).toContain(`pwc_lost_creates_recovered_total ${LOST_CREATES}`);
    expect(metrics).toContain('pwc_lost_create_lookup_off_practices 0');
    expect(started.product.logLines.filter((line) => line.includes('client_reference'))).toEqual([]);
  }, 120_000);
});

describe('the check of the client_reference filter', () => {
  it('an ignored filter: look-ups off for each practice, one log line with no ids, the metric set', async () => {
    const started = await start();
    const { simulator } = started.product;
    // Conversations the relay did not make (staff's, other channels'), so the practices are not empty.
    const token = await accessToken(simulator);
    const ids: string[] = [];
    for (const practice of [simulator.seed.grantedPracticeId, simulator.seed.smileDentalPracticeId]) {
      const created = await simulator.app.request('/api/conversations/', {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ practice, channel: 'webchat' }),
      });
      ids.push(((await created.json()) as { id: string }).id);
    }
    simulator.faults.set({ ...CREATE_THEN_502, ignoreClientReference: true });

    const key = randomUUID();
    const answers = [
      await create(started.call, key),
      await create(started.call, key),
      await create(started.call, undefined, 'smile-dental'),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([503, 503, 503]);

    const metrics = await started.scrape();
    expect(metrics).toContain('pwc_lost_create_lookup_off_practices 2');
    expect(metrics).toContain('pwc_lost_creates_unconfirmed_total{reason="lookup_off"} 3');
    // The two checks listed; no look-up did.
    expect(metrics).toContain(
      'pwc_upstream_request_duration_seconds_count{operation="list_conversations",outcome="ok"} 2',
    );

    const told = started.product.logLines.filter((line) => line.includes('client_reference'));
    expect(told).toHaveLength(1);
    expect(JSON.parse(told[0]!)).toMatchObject({ level: 'warn' });
    for (const secret of [...ids, ...Object.values(simulator.seed), 'demo-client', 'smile-dental', key])
      expect(told[0]).not.toContain(secret);
    // Each refusal's request line says why, for the operator.
    const refused = started.product.logLines.filter((line) => line.includes('"status":503'));
    expect(refused).toHaveLength(3);
    for (const line of refused) expect(JSON.parse(line)).toMatchObject({ cause: 'lost_create_unconfirmed' });
  }, 60_000);
});
