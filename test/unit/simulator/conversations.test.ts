import { afterEach, describe, expect, it } from 'vitest';
import { authedSimulator } from './helpers.ts';

type Setup = Awaited<ReturnType<typeof authedSimulator>>;
const setups: Setup[] = [];
afterEach(() => {
  for (const setup of setups.splice(0)) setup.sim.close();
});

async function setup(options: Parameters<typeof authedSimulator>[0] = {}) {
  const s = await authedSimulator({ botReplyDelayMs: 60_000, agentJoinDelayMs: 60_000, ...options });
  setups.push(s);
  const create = async (subject?: string) => {
    const response = await s.json('/api/conversations/', 'POST', {
      practice: s.sim.seed.grantedPracticeId,
      channel: 'webchat',
      ...(subject === undefined ? {} : { subject }),
    });
    expect(response.status).toBe(201);
    return response.json();
  };
  const send = (id: string, text: string) =>
    s.json(`/api/conversations/${id}/messages/`, 'POST', { text, sender: 'visitor' });
  return { ...s, create, send };
}

const RECORD_FIELDS = [
  'channel',
  'created_at',
  'id',
  'language',
  'mode',
  'practice',
  'status',
  'subject',
  'updated_at',
];

describe('conversation operations', () => {
  it('creates a conversation: 201 detail with message_stats', async () => {
    const { sim, create } = await setup();
    const body = await create('Question about a filling');
    expect(Object.keys(body).sort()).toEqual([...RECORD_FIELDS, 'message_stats'].sort());
    expect(body).toMatchObject({
      practice: sim.seed.grantedPracticeId,
      channel: 'webchat',
      status: 'open',
      mode: 'bot',
      subject: 'Question about a filling',
      message_stats: { total: 0, visitor: 0, bot: 0, agent: 0, last_message_at: null },
    });
    expect(body.id).toMatch(/^cnv_[A-Za-z0-9_-]{16}$/);
    expect(sim.store.conversations.get(body.id)?.subject).toBe('Question about a filling');
    expect(sim.counters.conversationsCreated).toBe(1);
    expect((await create()).subject).toBe('');
  });

  it.each([
    ['no body', undefined],
    ['not an object', 'hello'],
    ['no practice', { channel: 'webchat' }],
    ['another channel', { practice: 'P', channel: 'sms' }],
    ['a subject that is not a string', { practice: 'P', channel: 'webchat', subject: 3 }],
  ])('answers 400 invalid when creating with %s', async (_name, body) => {
    const { sim, json, request } = await setup();
    const fixed =
      typeof body === 'object' && body && 'practice' in body ? { ...body, practice: sim.seed.grantedPracticeId } : body;
    const response =
      fixed === undefined
        ? await request('/api/conversations/', { method: 'POST' })
        : await json('/api/conversations/', 'POST', fixed);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'invalid' });
    expect(sim.store.conversations.size).toBe(0);
  });

  it('answers 400 for malformed JSON', async () => {
    const { request } = await setup();
    const response = await request('/api/conversations/', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"practice":',
    });
    expect(response.status).toBe(400);
  });

  it('answers 403 when creating for the other practice, and creates nothing', async () => {
    const { sim, json } = await setup();
    const response = await json('/api/conversations/', 'POST', {
      practice: sim.seed.otherPracticeId,
      channel: 'webchat',
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ code: 'permission_denied' });
    expect(sim.store.conversations.size).toBe(0);
    expect(sim.counters.conversationsCreated).toBe(0);
  });

  it('retrieves a conversation with message_stats, 404 for an unknown id', async () => {
    const { request, create, send } = await setup();
    const { id } = await create();
    await send(id, 'hello');
    const response = await request(`/api/conversations/${id}/`);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.message_stats).toMatchObject({ total: 1, visitor: 1, bot: 0, agent: 0 });
    expect(body.message_stats.last_message_at).toEqual(expect.any(String));
    const missing = await request('/api/conversations/cnv_doesnotexist/');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 'not_found' });
  });

  it('updates the subject with PATCH and ignores read-only fields', async () => {
    let clock = 1_750_000_000_000;
    const { json, create } = await setup({ now: () => clock });
    const { id } = await create('old');
    clock += 5_000;
    const response = await json(`/api/conversations/${id}/`, 'PATCH', { subject: 'new', status: 'resolved' });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({ subject: 'new', status: 'open' });
    expect(Date.parse(body.updated_at) - Date.parse(body.created_at)).toBe(5_000);
    expect((await json(`/api/conversations/${id}/`, 'PATCH', { subject: 42 })).status).toBe(400);
  });

  it('switches to agent mode, escalates and resolves', async () => {
    const { request, create } = await setup();
    const { id } = await create();
    const agent = await (await request(`/api/conversations/${id}/agent-mode/`, { method: 'POST' })).json();
    expect(agent).toMatchObject({ mode: 'agent', status: 'open' });
    const escalated = await request(`/api/conversations/${id}/escalate/`, { method: 'POST' });
    expect(escalated.status).toBe(200);
    expect(await escalated.json()).toMatchObject({ mode: 'agent', status: 'escalated' });
    const resolved = await request(`/api/conversations/${id}/resolve/`, { method: 'POST' });
    expect(resolved.status).toBe(200);
    expect(await resolved.json()).toMatchObject({ status: 'resolved' });
    expect((await request(`/api/conversations/${id}/resolve/`, { method: 'POST' })).status).toBe(200);
    const late = await request(`/api/conversations/${id}/escalate/`, { method: 'POST' });
    expect(late.status).toBe(400);
    expect(await late.json()).toMatchObject({ code: 'conversation_resolved' });
  });

  it('escalates straight from bot mode', async () => {
    const { request, create } = await setup();
    const { id } = await create();
    expect(await (await request(`/api/conversations/${id}/escalate/`, { method: 'POST' })).json()).toMatchObject({
      mode: 'agent',
      status: 'escalated',
    });
  });

  it('answers 404 for every operation on an unknown conversation', async () => {
    const { request } = await setup();
    for (const [method, suffix] of [
      ['PATCH', ''],
      ['POST', 'agent-mode/'],
      ['POST', 'escalate/'],
      ['POST', 'resolve/'],
      ['GET', 'messages/'],
      ['POST', 'messages/'],
      ['GET', 'patients/'],
    ] as const) {
      expect((await request(`/api/conversations/cnv_nope/${suffix}`, { method })).status, `${method} ${suffix}`).toBe(
        404,
      );
    }
  });

  it('answers 403 for every operation on a conversation of the other practice', async () => {
    const { sim, request, create } = await setup();
    const { id } = await create();
    // The API cannot create one for the other practice, so the test moves a seeded one there.
    const record = sim.store.conversations.get(id);
    if (!record) throw new Error('missing');
    Object.assign(record, { practice: sim.seed.otherPracticeId });
    for (const [method, suffix] of [
      ['GET', ''],
      ['PATCH', ''],
      ['POST', 'agent-mode/'],
      ['POST', 'escalate/'],
      ['POST', 'resolve/'],
      ['GET', 'messages/'],
      ['POST', 'messages/'],
      ['GET', 'patients/'],
      ['POST', 'patients/'],
      ['DELETE', 'patients/p1/'],
    ] as const) {
      const response = await request(`/api/conversations/${id}/${suffix}`, { method });
      expect(response.status, `${method} ${suffix}`).toBe(403);
    }
    const list = await (await request('/api/conversations/')).json();
    expect(list.meta.results_total).toBe(0);
  });
});

describe('GET /api/conversations/', () => {
  it('lists newest first in the paginated envelope, without message_stats', async () => {
    let clock = 1_750_000_000_000;
    const { request, create } = await setup({ now: () => clock });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await create(`c${i}`)).id);
      clock += 1000;
    }
    const body = await (await request('/api/conversations/')).json();
    expect(body.meta).toEqual({ page: 1, page_total: 1, page_size: 50, results_total: 3 });
    expect(body.results.map((c: { id: string }) => c.id)).toEqual([...ids].reverse());
    expect(Object.keys(body.results[0]).sort()).toEqual(RECORD_FIELDS);
    const ascending = await (await request('/api/conversations/?ordering=created_at')).json();
    expect(ascending.results.map((c: { id: string }) => c.id)).toEqual(ids);
    const paged = await (await request('/api/conversations/?page_size=2&page=2')).json();
    expect(paged.results.map((c: { id: string }) => c.id)).toEqual([ids[0]]);
    expect(paged.links.previous).toBe('http://localhost/api/conversations/?page_size=2&page=1');
  });

  it('filters by status, status__in, practice, practice__in and created_at bounds', async () => {
    let clock = 1_750_000_000_000;
    const { sim, request, create } = await setup({ now: () => clock });
    const a = (await create('a')).id;
    clock += 60_000;
    const b = (await create('b')).id;
    clock += 60_000;
    const c = (await create('c')).id;
    await request(`/api/conversations/${b}/escalate/`, { method: 'POST' });
    await request(`/api/conversations/${c}/resolve/`, { method: 'POST' });
    const ids = async (query: string) => {
      const response = await request(`/api/conversations/${query}`);
      expect(response.status, query).toBe(200);
      return (await response.json()).results.map((r: { id: string }) => r.id).sort();
    };
    expect(await ids('?status=open')).toEqual([a]);
    expect(await ids('?status__in=open,resolved')).toEqual([a, c].sort());
    expect(await ids(`?practice=${sim.seed.grantedPracticeId}`)).toEqual([a, b, c].sort());
    expect(await ids(`?practice__in=${sim.seed.grantedPracticeId}`)).toEqual([a, b, c].sort());
    const at = (ms: number) => encodeURIComponent(new Date(ms).toISOString());
    expect(await ids(`?created_at__gte=${at(1_750_000_060_000)}`)).toEqual([b, c].sort());
    expect(await ids(`?created_at__lte=${at(1_750_000_060_000)}`)).toEqual([a, b].sort());
    expect((await request('/api/conversations/?status=closed')).status).toBe(400);
    expect((await request('/api/conversations/?created_at__gte=soon')).status).toBe(400);
    expect((await request(`/api/conversations/?practice=${sim.seed.otherPracticeId}`)).status).toBe(403);
    expect((await request(`/api/conversations/?practice__in=${sim.seed.otherPracticeId}`)).status).toBe(403);
  });

  it('searches message text case-insensitively', async () => {
    const { request, create, send } = await setup();
    const a = (await create('no match in subject')).id;
    const b = (await create('Root canal')).id;
    await send(a, 'My ROOT Canal hurts');
    await send(b, 'Opening hours?');
    const found = await (await request('/api/conversations/?search=root%20canal')).json();
    expect(found.results.map((r: { id: string }) => r.id)).toEqual([a]);
    const none = await (await request('/api/conversations/?search=toothbrush')).json();
    expect(none.meta.results_total).toBe(0);
  });
});
