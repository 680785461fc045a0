import { describe, expect, it } from 'vitest';
import { createSimulator } from '../../../src/simulator/app.ts';
import { authedSimulator, tokenRequest } from './helpers.ts';

describe('fault injection', () => {
  it('starts with no faults and reports what was set', async () => {
    const { sim } = await authedSimulator();
    expect(sim.faults.current()).toEqual({});
    sim.faults.set({ errorRate: 0.5, match: /calls/ });
    expect(sim.faults.current()).toEqual({ errorRate: 0.5, match: /calls/ });
    sim.faults.set({ latencyMs: 5 });
    expect(sim.faults.current()).toEqual({ latencyMs: 5 });
    sim.faults.reset();
    expect(sim.faults.current()).toEqual({});
  });

  it('refuses settings out of range', () => {
    const sim = createSimulator();
    expect(() => sim.faults.set({ errorRate: 50 })).toThrow();
    expect(() => sim.faults.set({ dropRate: -0.1 })).toThrow();
    expect(() => sim.faults.set({ latencyMs: -1 })).toThrow();
  });

  it('adds latency before /api responses', async () => {
    const { sim, request } = await authedSimulator();
    sim.faults.set({ latencyMs: 60 });
    const start = performance.now();
    expect((await request('/api/calls/')).status).toBe(200);
    expect(performance.now() - start).toBeGreaterThanOrEqual(55);
  });

  it('answers 500 for errorRate 1', async () => {
    const { sim, request } = await authedSimulator();
    sim.faults.set({ errorRate: 1 });
    const response = await request('/api/calls/');
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ code: 'server_error' });
  });

  it('answers 429 with Retry-After for rateLimitRate 1', async () => {
    const { sim, request } = await authedSimulator();
    sim.faults.set({ rateLimitRate: 1 });
    const response = await request('/api/calls/');
    expect(response.status).toBe(429);
    expect(response.headers.get('Retry-After')).toBe('1');
    sim.faults.set({ rateLimitRate: 1, retryAfterSeconds: 7 });
    expect((await request('/api/calls/')).headers.get('Retry-After')).toBe('7');
  });

  it('fails the request like a network error for dropRate 1 under app.request', async () => {
    const { sim, request } = await authedSimulator();
    sim.faults.set({ dropRate: 1 });
    await expect(request('/api/calls/')).rejects.toBeInstanceOf(TypeError);
    await expect(sim.fetch('http://upstream.test/api/calls/')).rejects.toThrow(/fetch failed/);
  });

  it('dropAfterHandlingRate 1 stores the message and then fails the request like a network error', async () => {
    const { sim, json } = await authedSimulator();
    const created = await json('/api/conversations/', 'POST', {
      practice: sim.seed.grantedPracticeId,
      channel: 'webchat',
    });
    const { id } = (await created.json()) as { id: string };
    sim.faults.set({ dropAfterHandlingRate: 1 });
    await expect(
      json(`/api/conversations/${id}/messages/`, 'POST', { text: 'stored, answer lost', sender: 'visitor' }),
    ).rejects.toBeInstanceOf(TypeError);
    expect(sim.store.messages.get(id)?.map((message) => message.text)).toEqual(['stored, answer lost']);
  });

  it('badGatewayAfterHandlingRate 1 stores the conversation and then answers 502', async () => {
    const { sim, json } = await authedSimulator();
    sim.faults.set({ badGatewayAfterHandlingRate: 1 });
    const created = await json('/api/conversations/', 'POST', {
      practice: sim.seed.grantedPracticeId,
      channel: 'webchat',
      client_reference: 'ref-stored-then-502',
    });
    expect(created.status).toBe(502);
    expect(await created.json()).toEqual({ detail: 'Bad gateway.', code: 'bad_gateway' });
    expect([...sim.store.conversations.values()].map((c) => c.client_reference)).toEqual(['ref-stored-then-502']);
  });

  it('errorAfterHandlingRate 1 stores the conversation and then answers 500', async () => {
    const { sim, json } = await authedSimulator();
    sim.faults.set({ errorAfterHandlingRate: 1 });
    const created = await json('/api/conversations/', 'POST', {
      practice: sim.seed.grantedPracticeId,
      channel: 'webchat',
      client_reference: 'ref-stored-then-500',
    });
    expect(created.status).toBe(500);
    expect(await created.json()).toEqual({ detail: 'A server error occurred.', code: 'server_error' });
    expect([...sim.store.conversations.values()].map((c) => c.client_reference)).toEqual(['ref-stored-then-500']);
  });

  it('applies faults only to requests with the methods listed', async () => {
    const { sim, request, json } = await authedSimulator();
    sim.faults.set({ errorRate: 1, match: /^\/api\/conversations\/$/, methods: ['POST'] });
    expect((await request('/api/conversations/')).status).toBe(200);
    expect(
      (await json('/api/conversations/', 'POST', { practice: sim.seed.grantedPracticeId, channel: 'webchat' })).status,
    ).toBe(500);
  });

  it('keeps, echoes and filters by client_reference, unless told to ignore it as an unknown field and filter', async () => {
    const { sim, request, json } = await authedSimulator();
    const practice = sim.seed.grantedPracticeId;
    const create = async (reference: string) => {
      const created = await json('/api/conversations/', 'POST', {
        practice,
        channel: 'webchat',
        client_reference: reference,
      });
      return (await created.json()) as { id: string; client_reference?: string };
    };
    const listed = async (reference: string) =>
      (
        (await (await request(`/api/conversations/?client_reference=${reference}`)).json()) as {
          results: { id: string; client_reference?: string }[];
        }
      ).results;

    const kept = await create('ref-a');
    expect(kept.client_reference).toBe('ref-a');
    expect(await listed('ref-a')).toEqual([expect.objectContaining({ id: kept.id, client_reference: 'ref-a' })]);
    expect(await listed('ref-none')).toEqual([]);

    sim.faults.set({ ignoreClientReference: true });
    const ignored = await create('ref-b');
    expect(ignored).not.toHaveProperty('client_reference');
    // The filter is ignored: every conversation of the practice comes back.
    const all = await listed('ref-none');
    expect(all.map((conversation) => conversation.id).sort()).toEqual([kept.id, ignored.id].sort());
  });

  it('applies faults only to paths matching match', async () => {
    const { sim, request } = await authedSimulator();
    sim.faults.set({ errorRate: 1, match: /\/oauth\// });
    expect((await request('/api/calls/')).status).toBe(200);
    const token = await sim.app.request(
      '/api/oauth/token/',
      tokenRequest({ username: sim.seed.username, password: sim.seed.password }),
    );
    expect(token.status).toBe(500);
    sim.faults.set({ errorRate: 1, match: /conversations/g });
    // A global regex must not alternate between matching and not (lastIndex).
    for (let i = 0; i < 3; i++) expect((await request('/api/conversations/')).status).toBe(500);
  });

  it('leaves non-/api paths alone', async () => {
    const { sim } = await authedSimulator();
    sim.faults.set({ errorRate: 1 });
    expect((await sim.app.request('/media/logo.svg')).status).toBe(403);
  });

  it('hits about the configured share, the same requests for the same seed', async () => {
    const run = async (seed: number) => {
      const { sim, request } = await authedSimulator({ randomSeed: seed });
      sim.faults.set({ errorRate: 0.3 });
      const statuses: number[] = [];
      for (let i = 0; i < 200; i++) statuses.push((await request('/api/calls/?page_size=1')).status);
      return statuses;
    };
    const first = await run(42);
    expect(await run(42)).toEqual(first);
    const errors = first.filter((s) => s === 500).length;
    expect(errors).toBeGreaterThan(35);
    expect(errors).toBeLessThan(85);
    expect(first.filter((s) => s !== 500).every((s) => s === 200)).toBe(true);
  });

  it('counts /api requests, faulted ones included, and nothing else', async () => {
    const { sim, request } = await authedSimulator();
    const before = sim.counters.apiRequests;
    sim.faults.set({ errorRate: 1 });
    await request('/api/calls/');
    sim.faults.reset();
    await request('/api/conversations/');
    await sim.app.request('/media/logo.svg');
    expect(sim.counters.apiRequests - before).toBe(2);
  });
});
