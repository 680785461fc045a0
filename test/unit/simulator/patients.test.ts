import { afterEach, describe, expect, it } from 'vitest';
import { authedSimulator } from './helpers.ts';

type Setup = Awaited<ReturnType<typeof authedSimulator>>;
const setups: Setup[] = [];
afterEach(() => {
  for (const s of setups.splice(0)) s.sim.close();
});

describe('linked patients', () => {
  async function setup() {
    const s = await authedSimulator();
    setups.push(s);
    const created = await s.json('/api/conversations/', 'POST', {
      practice: s.sim.seed.grantedPracticeId,
      channel: 'webchat',
    });
    const { id } = (await created.json()) as { id: string };
    return { ...s, base: `/api/conversations/${id}/patients/` };
  }

  it('links, lists and unlinks patients', async () => {
    const { base, json, request } = await setup();
    const empty = await (await request(base)).json();
    expect(empty.meta).toMatchObject({ results_total: 0, page_total: 1 });

    const linked = await json(base, 'POST', { patient: 'pat_123' });
    expect(linked.status).toBe(201);
    const link = await linked.json();
    expect(Object.keys(link).sort()).toEqual(['created_at', 'id', 'patient']);
    expect(link.patient).toBe('pat_123');
    await json(base, 'POST', { patient: 'pat_456' });

    const list = await (await request(base)).json();
    expect(list.results.map((l: { patient: string }) => l.patient)).toEqual(['pat_123', 'pat_456']);

    const removed = await request(`${base}pat_123/`, { method: 'DELETE' });
    expect(removed.status).toBe(204);
    expect(await removed.text()).toBe('');
    const after = await (await request(base)).json();
    expect(after.results.map((l: { patient: string }) => l.patient)).toEqual(['pat_456']);
    expect((await request(`${base}pat_123/`, { method: 'DELETE' })).status).toBe(404);
  });

  it.each([
    ['no patient', {}],
    ['an empty patient', { patient: ' ' }],
    ['a number', { patient: 7 }],
  ])('answers 400 invalid for %s', async (_name, body) => {
    const { base, json } = await setup();
    const response = await json(base, 'POST', body);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'invalid' });
  });

  it('answers 400 for linking the same patient twice', async () => {
    const { base, json } = await setup();
    expect((await json(base, 'POST', { patient: 'pat_1' })).status).toBe(201);
    expect((await json(base, 'POST', { patient: 'pat_1' })).status).toBe(400);
  });
});
