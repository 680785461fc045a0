// The upstream client against the simulator, which implements the README's contract: pagination, the token's
// life cycle under concurrency, every error mapping and the conversation operations end to end.
import { afterEach, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../../src/simulator/app.ts';
import { startSimulatorServer } from '../../../src/simulator/server.ts';
import { upstreamFailure } from './fake-upstream.ts';
import { createUpstreamClient, type UpstreamClientOptions } from '../../../src/relay/upstream/client.ts';
import { collectAll } from '../../../src/relay/upstream/pages.ts';
import type { Call } from '../../../src/relay/upstream/schemas.ts';

const BASE = 'http://upstream.test';
const open: Simulator[] = [];

function setup(
  simOptions: Parameters<typeof createSimulator>[0] = {},
  clientOptions: Partial<UpstreamClientOptions> = {},
) {
  const sim = createSimulator({ randomSeed: 1, botReplyDelayMs: 5, ...simOptions });
  open.push(sim);
  const client = createUpstreamClient({
    baseUrl: BASE,
    username: sim.seed.username,
    password: sim.seed.password,
    fetch: sim.fetch,
    ...clientOptions,
  });
  return { sim, client };
}

afterEach(() => {
  for (const sim of open.splice(0)) sim.close();
});

async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 2000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('calls', () => {
  it.each([
    [50, 3],
    [100, 2],
  ])('walks all 130 calls with page_size %i in %i pages', async (pageSize, pages) => {
    const { sim, client } = setup();
    const calls: Call[] = await collectAll(client.walkCalls({ pageSize }));
    expect(calls).toHaveLength(130);
    expect(new Set(calls.map((c) => c.id)).size).toBe(130);
    // The simulator counts its token endpoint among apiRequests.
    expect(sim.counters.apiRequests - sim.counters.tokenRequests).toBe(pages);
    expect(sim.counters.tokenRequests).toBe(1);
    for (const call of calls) {
      expect(call.practice).toBe(sim.seed.grantedPracticeId);
      expect(['inbound', 'outbound']).toContain(call.direction);
      expect(typeof call.duration_seconds).toBe('number');
      expect(typeof call.is_opportunity).toBe('boolean');
    }
  });

  it('lists one page with its envelope and filters', async () => {
    const { sim, client } = setup();
    const page = await client.listCalls({
      pageSize: 500,
      page: 2,
      ordering: 'started_at',
      practice: sim.seed.grantedPracticeId,
    });
    expect(page.meta).toEqual({ page: 2, page_total: 2, page_size: 100, results_total: 130 });
    expect(page.results).toHaveLength(30);
    expect(page.links.next).toBeNull();
    const missed = await collectAll(client.walkCalls({ status: 'missed' }));
    expect(missed.length).toBeGreaterThan(0);
    expect(missed.every((c) => c.status === 'missed')).toBe(true);
  });

  it('walks the calls over a real port', async () => {
    const server = await startSimulatorServer();
    try {
      const client = createUpstreamClient({
        baseUrl: server.url,
        username: server.simulator.seed.username,
        password: server.simulator.seed.password,
      });
      expect(await collectAll(client.walkCalls({ pageSize: 50 }))).toHaveLength(130);
    } finally {
      await server.close();
    }
  });
});

describe('token life cycle', () => {
  it('1,000 concurrent cold calls make exactly one token request', async () => {
    const { sim, client } = setup();
    const results = await Promise.all(
      Array.from({ length: 1000 }, () => client.getWebchatConfiguration('demo-client')),
    );
    expect(results.every((r) => r.id === 'demo-client')).toBe(true);
    expect(sim.counters.tokenRequests).toBe(1);
    expect(sim.counters.apiRequests).toBe(1001);
  });

  it('after revokeAllTokens, 200 concurrent calls all succeed with one new token and at most one retry each', async () => {
    const { sim, client } = setup();
    await client.getWebchatConfiguration('demo-client');
    sim.revokeAllTokens();
    const before = { tokens: sim.counters.tokenRequests, api: sim.counters.apiRequests };
    const results = await Promise.all(Array.from({ length: 200 }, () => client.getWebchatConfiguration('demo-client')));
    expect(results).toHaveLength(200);
    expect(sim.counters.tokenRequests - before.tokens).toBe(1);
    // Each call: its 401 and its retry with the new token (token requests are counted as API requests too).
    expect(sim.counters.apiRequests - before.api).toBe(200 * 2 + 1);
  });

  it('refreshes before expiry on the shared clock, so no request meets an expired token', async () => {
    let t = Date.parse('2030-01-01T00:00:00Z');
    const now = () => t;
    const { sim, client } = setup({ now, tokenLifetimeSeconds: 100 }, { now });
    await client.getWebchatConfiguration('demo-client');
    t += 85_000; // past the refresh point (80 s), before expiry (100 s)
    await client.getWebchatConfiguration('demo-client');
    expect(sim.counters.tokenRequests).toBe(2);
    t += 90_000;
    await client.getWebchatConfiguration('demo-client');
    expect(sim.counters.tokenRequests).toBe(3);
    expect(sim.counters.apiRequests).toBe(6); // 3 token requests + 3 calls: not one 401 retry
  });

  it('a wrong password is auth_failed, and the next call within the backoff makes no request', async () => {
    let t = 0;
    const { sim, client } = setup({}, { password: 'wrong-password', now: () => t });
    expect((await upstreamFailure(client.getWebchatConfiguration('demo-client'))).code).toBe('upstream_auth_failed');
    expect((await upstreamFailure(client.getWebchatConfiguration('demo-client'))).code).toBe('upstream_auth_failed');
    expect(sim.counters.tokenRequests).toBe(1);
    t += 1000;
    await upstreamFailure(client.getWebchatConfiguration('demo-client'));
    expect(sim.counters.tokenRequests).toBe(2);
  });
});

describe('error mapping', () => {
  it('403 for a configuration of another practice, 404 for an unknown client_id', async () => {
    const { client } = setup();
    const forbidden = await upstreamFailure(client.getWebchatConfiguration('demo-other-practice'));
    expect(forbidden).toMatchObject({ code: 'upstream_forbidden', status: 403 });
    expect(forbidden.message).toBe('upstream answered 403 for /api/conversations/webchat-configuration/');
    expect(await upstreamFailure(client.getWebchatConfiguration('no-such-client'))).toMatchObject({
      code: 'upstream_not_found',
      status: 404,
    });
  });

  it('429 carries Retry-After', async () => {
    const { sim, client } = setup();
    sim.faults.set({ rateLimitRate: 1, retryAfterSeconds: 7, match: /^\/api\/calls\// });
    expect(await upstreamFailure(client.listCalls())).toMatchObject({
      code: 'upstream_rate_limited',
      status: 429,
      retryAfterSeconds: 7,
    });
  });

  it('500 is unavailable', async () => {
    const { sim, client } = setup();
    sim.faults.set({ errorRate: 1, match: /^\/api\/calls\// });
    expect(await upstreamFailure(client.listCalls())).toMatchObject({ code: 'upstream_unavailable', status: 500 });
  });

  it('a dropped connection is unavailable, in process and over a real port', async () => {
    const { sim, client } = setup();
    sim.faults.set({ dropRate: 1, match: /^\/api\/calls\// });
    expect((await upstreamFailure(client.listCalls())).code).toBe('upstream_unavailable');

    const server = await startSimulatorServer();
    try {
      server.simulator.faults.set({ dropRate: 1, match: /^\/api\/calls\// });
      const real = createUpstreamClient({
        baseUrl: server.url,
        username: server.simulator.seed.username,
        password: server.simulator.seed.password,
      });
      expect((await upstreamFailure(real.listCalls())).code).toBe('upstream_unavailable');
    } finally {
      await server.close();
    }
  });

  it('latency beyond the deadline is a timeout', async () => {
    const { sim, client } = setup({}, { timeoutMs: 40 });
    sim.faults.set({ latencyMs: 300, match: /^\/api\/calls\// });
    const started = Date.now();
    expect((await upstreamFailure(client.listCalls())).code).toBe('upstream_timeout');
    expect(Date.now() - started).toBeLessThan(250);
  });

  it('the token endpoint failing is mapped too (500 → unavailable)', async () => {
    const { sim, client } = setup();
    sim.faults.set({ errorRate: 1, match: /oauth/ });
    expect((await upstreamFailure(client.listCalls())).code).toBe('upstream_unavailable');
  });
});

describe('conversations', () => {
  it('create, read, update, send, read after a cursor, agent mode, escalate, patients, search, resolve', async () => {
    const { sim, client } = setup({ botReplyDelayMs: 5, agentJoinDelayMs: 5 });
    const practice = sim.seed.grantedPracticeId;

    const created = await client.createConversation({ practice, subject: 'Website chat' });
    expect(created).toMatchObject({
      practice,
      channel: 'webchat',
      status: 'open',
      mode: 'bot',
      subject: 'Website chat',
    });
    expect(created.message_stats.total).toBe(0);
    expect(created.message_stats.last_message_at).toBeNull();
    const id = created.id;

    expect(await client.updateConversation(id, { subject: 'Appointment' })).toMatchObject({
      id,
      subject: 'Appointment',
    });

    const sent = await client.sendMessage(id, 'What are your opening hours?');
    expect(sent).toMatchObject({
      conversation: id,
      sequence: 1,
      sender: 'visitor',
      text: 'What are your opening hours?',
    });

    const reply = await eventually(async () => {
      const { messages } = await client.listMessagesAfter(id, sent.sequence);
      return messages.find((m) => m.sender === 'bot');
    });
    expect(reply.sequence).toBeGreaterThan(sent.sequence);
    const all = await client.listMessagesAfter(id, 0);
    expect(all.messages.map((m) => m.sequence)).toEqual([...all.messages.map((m) => m.sequence)].sort((a, b) => a - b));
    expect(all.hasMore).toBe(false);

    const detail = await client.getConversation(id);
    expect(detail.message_stats.visitor).toBe(1);
    expect(detail.message_stats.bot).toBeGreaterThanOrEqual(1);

    expect(await client.switchToAgentMode(id)).toMatchObject({ mode: 'agent', status: 'open' });
    expect(await client.escalate(id)).toMatchObject({ mode: 'agent', status: 'escalated' });
    await eventually(async () => (await client.listMessagesAfter(id, 0)).messages.find((m) => m.sender === 'agent'));

    // A patient identifier with characters that must be encoded in the path.
    const odd = 'MRN 12/34?x#y';
    const link = await client.addPatient(id, odd);
    expect(link.patient).toBe(odd);
    await client.addPatient(id, 'p-2');
    expect((await client.listPatients(id)).map((l) => l.patient)).toEqual([odd, 'p-2']);
    await client.removePatient(id, odd);
    expect((await client.listPatients(id)).map((l) => l.patient)).toEqual(['p-2']);
    const gone = await upstreamFailure(client.removePatient(id, odd));
    expect(gone.code).toBe('upstream_not_found');
    expect(gone.message).toBe('upstream answered 404 for /api/conversations/{id}/patients/{patient}/');

    const other = await client.createConversation({ practice });
    const found = await client.listConversations({ search: 'OPENING HOURS', practice });
    expect(found.results.map((c) => c.id)).toEqual([id]);
    const escalated = await collectAll(client.walkConversations({ statusIn: ['escalated'] }));
    expect(escalated.map((c) => c.id)).toEqual([id]);
    expect((await collectAll(client.walkConversations({ pageSize: 1 }))).map((c) => c.id).sort()).toEqual(
      [id, other.id].sort(),
    );

    expect(await client.resolve(id)).toMatchObject({ status: 'resolved' });
    expect(await upstreamFailure(client.sendMessage(id, 'hello again'))).toMatchObject({
      code: 'upstream_rejected',
      status: 400,
    });
  });

  it('maps the contract errors: unknown id 404, other practice 403, bad body 400', async () => {
    const { sim, client } = setup();
    expect((await upstreamFailure(client.getConversation('cnv_missing'))).code).toBe('upstream_not_found');
    expect((await upstreamFailure(client.createConversation({ practice: sim.seed.otherPracticeId }))).code).toBe(
      'upstream_forbidden',
    );
    const { id } = await client.createConversation({ practice: sim.seed.grantedPracticeId });
    expect((await upstreamFailure(client.sendMessage(id, '   '))).code).toBe('upstream_rejected');
    expect(sim.counters.messagesReceived).toBe(0);
  });
});
