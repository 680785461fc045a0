// The staff page's JSON calls (docs/simulator.md, "Staff page"): the practice's side, without a Bearer token,
// on loopback only. Requests go through app.request, whose URL is http://localhost/... unless a test names another host.
import { afterEach, describe, expect, it } from 'vitest';
import { authedSimulator, eventually } from './helpers.ts';

type Setup = Awaited<ReturnType<typeof authedSimulator>>;
const setups: Setup[] = [];
afterEach(() => {
  for (const s of setups.splice(0)) s.sim.close();
});

async function setup(options: Parameters<typeof authedSimulator>[0] = {}) {
  const s = await authedSimulator({ botReplyDelayMs: 0, agentJoinDelayMs: 0, ...options });
  setups.push(s);
  const open = async (practice = s.sim.seed.grantedPracticeId) => {
    const created = await s.json('/api/conversations/', 'POST', { practice, channel: 'webchat' });
    return ((await created.json()) as { id: string }).id;
  };
  /** No Authorization header: the staff API needs none. */
  const staff = (path: string, init: RequestInit = {}) => s.sim.app.request(path, init);
  const reply = (id: string, body: unknown, headers: Record<string, string> = { 'Content-Type': 'application/json' }) =>
    staff(`/staff/api/conversations/${id}/messages`, {
      method: 'POST',
      headers,
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const messages = (id: string) => s.sim.store.messages.get(id) ?? [];
  return { ...s, open, staff, reply, messages };
}

describe('staff API', () => {
  it('a reply is stored as the team member’s message, switches the conversation to agent mode and answers 201 with it', async () => {
    const { open, reply, request, messages } = await setup({ botReplyDelayMs: 60_000 });
    const id = await open();
    const response = await reply(id, { text: 'Hello, this is the front desk.' });
    expect(response.status).toBe(201);
    const message = await response.json();
    expect(message).toMatchObject({
      conversation: id,
      sequence: 1,
      sender: 'agent',
      author_name: 'Maria',
      text: 'Hello, this is the front desk.',
    });
    expect(messages(id)).toEqual([message]);
    // Read back through the upstream API, as the relay would.
    const detail = await (await request(`/api/conversations/${id}/`)).json();
    expect(detail).toMatchObject({ mode: 'agent', status: 'open', message_stats: { total: 1, agent: 1 } });
    const read = await (await request(`/api/conversations/${id}/messages/?after=0`)).json();
    expect(read.results).toEqual([message]);
  });

  it('signs with the team member of the conversation’s practice', async () => {
    const { sim, open, reply } = await setup();
    const id = await open(sim.seed.smileDentalPracticeId);
    expect(await (await reply(id, { text: 'Hi' })).json()).toMatchObject({ author_name: 'Grace' });
  });

  it('after a staff reply neither the bot nor the simulated team member answers the visitor', async () => {
    const { open, reply, json, messages } = await setup({ botReplyDelayMs: 20, agentJoinDelayMs: 20 });
    const id = await open();
    await json(`/api/conversations/${id}/messages/`, 'POST', { text: 'When are you open?', sender: 'visitor' });
    expect((await reply(id, { text: 'We open at 8.' })).status).toBe(201);
    await json(`/api/conversations/${id}/messages/`, 'POST', { text: 'Thanks', sender: 'visitor' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(messages(id).map((m) => m.sender)).toEqual(['visitor', 'agent', 'visitor']);
  });

  it('resolve resolves the conversation (200), and a resolved conversation takes no reply (400 conversation_resolved)', async () => {
    const { open, staff, reply, request } = await setup();
    const id = await open();
    const response = await staff(`/staff/api/conversations/${id}/resolve`, { method: 'POST' });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id, status: 'resolved' });
    expect(await (await request(`/api/conversations/${id}/`)).json()).toMatchObject({ status: 'resolved' });
    const refused = await reply(id, { text: 'Too late' });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ code: 'conversation_resolved' });
  });

  it.each([
    ['GET', '/staff/api/conversations/cnv_unknown'],
    ['POST', '/staff/api/conversations/cnv_unknown/messages'],
    ['POST', '/staff/api/conversations/cnv_unknown/resolve'],
  ])('%s %s answers 404 not_found', async (method, path) => {
    const { staff } = await setup();
    const response = await staff(path, {
      method,
      headers: { 'Content-Type': 'application/json' },
      ...(method === 'POST' ? { body: '{"text":"hi"}' } : {}),
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: 'not_found' });
  });

  it.each([
    ['no text', {}],
    ['text not a string', { text: 5 }],
    ['blank text', { text: ' \n ' }],
    ['text over 4000 characters', { text: 'a'.repeat(4001) }],
    ['an array', [{ text: 'hi' }]],
    ['not JSON', '{"text":'],
  ])('answers 400 invalid for %s and stores nothing', async (_name, body) => {
    const { open, reply, messages, request } = await setup();
    const id = await open();
    const response = await reply(id, body);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'invalid' });
    expect(messages(id)).toHaveLength(0);
    expect(await (await request(`/api/conversations/${id}/`)).json()).toMatchObject({ mode: 'bot' });
  });

  it('takes JSON only (415), so a form posted from elsewhere cannot write', async () => {
    const { open, reply, messages } = await setup();
    const id = await open();
    const response = await reply(id, '{"text":"hi"}', { 'Content-Type': 'text/plain' });
    expect(response.status).toBe(415);
    expect(messages(id)).toHaveLength(0);
  });

  it('refuses another site’s Origin and a non-loopback Host (403), and needs no Bearer token', async () => {
    const { sim, open, staff, messages } = await setup();
    const id = await open();
    const fromElsewhere = await staff(`/staff/api/conversations/${id}/resolve`, {
      method: 'POST',
      headers: { Origin: 'https://evil.example' },
    });
    expect(fromElsewhere.status).toBe(403);
    expect(await fromElsewhere.json()).toMatchObject({ code: 'forbidden_origin' });
    const rebound = await staff(`http://evil.example/staff/api/conversations/${id}`);
    expect(rebound.status).toBe(403);
    expect(await rebound.json()).toMatchObject({ code: 'forbidden_host' });
    expect((await staff('http://evil.example/staff')).status).toBe(403);
    expect(sim.store.conversations.get(id)?.status).toBe('open');
    // Same origin, no token: allowed.
    const sameOrigin = await staff(`/staff/api/conversations/${id}/messages`, {
      method: 'POST',
      headers: { Origin: 'http://localhost', 'Content-Type': 'application/json' },
      body: JSON.stringify({ text: 'ok' }),
    });
    expect(sameOrigin.status).toBe(201);
    expect(messages(id)).toHaveLength(1);
    expect((await staff('http://127.0.0.1:8788/staff/api/conversations')).status).toBe(200);
  });

  it('lists conversations newest first with status, mode and practice, and is not counted as upstream API traffic', async () => {
    const { sim, open, staff, request } = await setup();
    const first = await open();
    const second = await open(sim.seed.smileDentalPracticeId);
    await request(`/api/conversations/${first}/escalate/`, { method: 'POST' });
    const before = sim.counters.apiRequests;
    const response = await staff('/staff/api/conversations');
    expect(response.status).toBe(200);
    expect(response.headers.get('Cache-Control')).toBe('no-store');
    const { conversations } = await response.json();
    expect(conversations.map((c: { id: string }) => c.id)).toEqual([second, first]);
    expect(conversations[0]).toMatchObject({ status: 'open', mode: 'bot', practice_name: 'Smile Dental' });
    expect(conversations[1]).toMatchObject({ status: 'escalated', mode: 'agent', practice_name: 'Demo Dental' });
    expect(sim.counters.apiRequests).toBe(before);
  });

  it('reads one conversation with its messages, and only those after a sequence with ?after=', async () => {
    const { sim, open, staff, json, messages } = await setup();
    const id = await open(sim.seed.smileDentalPracticeId);
    await json(`/api/conversations/${id}/messages/`, 'POST', { text: 'When are you open?', sender: 'visitor' });
    await eventually(() => messages(id).length === 2);
    const whole = await (await staff(`/staff/api/conversations/${id}`)).json();
    expect(whole.conversation).toMatchObject({
      id,
      status: 'open',
      mode: 'bot',
      bot_name: 'Sunny',
      team_member_name: 'Grace',
    });
    expect(whole.messages.map((m: { sequence: number; sender: string }) => [m.sequence, m.sender])).toEqual([
      [1, 'visitor'],
      [2, 'bot'],
    ]);
    const after = await (await staff(`/staff/api/conversations/${id}?after=1`)).json();
    expect(after.messages.map((m: { sequence: number }) => m.sequence)).toEqual([2]);
    expect((await staff(`/staff/api/conversations/${id}?after=-1`)).status).toBe(400);
  });
});

describe('staff page', () => {
  it('is served at /staff as HTML under a strict CSP of its own, with its script and style from the same origin', async () => {
    const { staff } = await setup();
    const page = await staff('/staff');
    expect(page.status).toBe(200);
    expect(page.headers.get('Content-Type')).toMatch(/^text\/html/);
    const csp = page.headers.get('Content-Security-Policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await page.text();
    expect(html).toContain('src="/staff/staff.js"');
    expect(html).not.toMatch(/<script>|<style>|\son[a-z]+=/);
    expect((await staff('/staff/staff.js')).headers.get('Content-Type')).toMatch(/^text\/javascript/);
    expect((await staff('/staff/staff.css')).headers.get('Content-Type')).toMatch(/^text\/css/);
  });
});

describe('staff page on a real port', () => {
  it('refuses a caller from another machine even with Host: localhost, and serves one on loopback', async () => {
    const { startSimulatorServer } = await import('../../../src/simulator/server.ts');
    const { networkInterfaces } = await import('node:os');
    const { request } = await import('node:http');
    // One of this machine's own non-loopback addresses: a connection to it comes from it, as another machine's would.
    const outside = Object.values(networkInterfaces())
      .flat()
      .find((entry) => entry !== undefined && !entry.internal && entry.family === 'IPv4')?.address;
    expect(outside, 'this test needs a non-loopback IPv4 interface').toBeDefined();
    const server = await startSimulatorServer({ host: '0.0.0.0', botReplyDelayMs: 0, agentJoinDelayMs: 0 });
    try {
      const port = new URL(server.url).port;
      const get = (host: string) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const call = request(
            { host, port, path: '/staff/api/conversations', headers: { Host: `localhost:${port}` } },
            (response) => {
              let body = '';
              response.on('data', (chunk: Buffer) => (body += chunk.toString()));
              response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
            },
          );
          call.on('error', reject);
          call.end();
        });
      const fromOutside = await get(outside!);
      expect(fromOutside.status).toBe(403);
      expect(JSON.parse(fromOutside.body)).toMatchObject({ code: 'forbidden_address' });
      expect((await get('127.0.0.1')).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
