import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_REPLY, BOT_FALLBACK, agentGreeting, botReply } from '../../../src/simulator/bot.ts';
import { authedSimulator, eventually } from './helpers.ts';

type Setup = Awaited<ReturnType<typeof authedSimulator>>;
const setups: Setup[] = [];
afterEach(() => {
  for (const s of setups.splice(0)) s.sim.close();
});

async function setup(options: Parameters<typeof authedSimulator>[0] = {}) {
  const s = await authedSimulator({ botReplyDelayMs: 0, agentJoinDelayMs: 0, ...options });
  setups.push(s);
  const created = await s.json('/api/conversations/', 'POST', {
    practice: s.sim.seed.grantedPracticeId,
    channel: 'webchat',
  });
  const { id } = (await created.json()) as { id: string };
  const send = (body: unknown) => s.json(`/api/conversations/${id}/messages/`, 'POST', body);
  const messages = () => s.sim.store.messages.get(id) ?? [];
  return { ...s, id, send, messages };
}

describe('messages', () => {
  it('sends a visitor message: 201 message record, sequence from 1', async () => {
    const { sim, id, send } = await setup({ botReplyDelayMs: 60_000 });
    const response = await send({ text: 'Hello there', sender: 'visitor' });
    expect(response.status).toBe(201);
    const message = await response.json();
    expect(Object.keys(message).sort()).toEqual(
      ['author_name', 'conversation', 'created_at', 'id', 'sender', 'sequence', 'text'].sort(),
    );
    expect(message).toMatchObject({ conversation: id, sequence: 1, sender: 'visitor', text: 'Hello there' });
    expect(message.id).toMatch(/^msg_/);
    expect((await (await send({ text: 'again', sender: 'visitor' })).json()).sequence).toBe(2);
    expect(sim.counters.messagesReceived).toBe(2);
  });

  it.each([
    ['missing text', { sender: 'visitor' }],
    ['text not a string', { text: 42, sender: 'visitor' }],
    ['empty text', { text: '', sender: 'visitor' }],
    ['blank text', { text: '  \n\t ', sender: 'visitor' }],
    ['text over 4000 characters', { text: 'a'.repeat(4001), sender: 'visitor' }],
    ['sender bot', { text: 'hi', sender: 'bot' }],
    ['sender agent', { text: 'hi', sender: 'agent' }],
    ['no sender', { text: 'hi' }],
    ['an array', [{ text: 'hi', sender: 'visitor' }]],
  ])('answers 400 invalid for %s', async (_name, body) => {
    const { sim, send, messages } = await setup();
    const response = await send(body);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'invalid' });
    expect(messages()).toHaveLength(0);
    expect(sim.counters.messagesReceived).toBe(0);
  });

  it('accepts exactly 4000 characters', async () => {
    const { send } = await setup({ botReplyDelayMs: 60_000 });
    expect((await send({ text: 'a'.repeat(4000), sender: 'visitor' })).status).toBe(201);
  });

  it('answers 400 conversation_resolved for a message to a resolved conversation', async () => {
    const { id, request, send, messages } = await setup();
    await request(`/api/conversations/${id}/resolve/`, { method: 'POST' });
    const response = await send({ text: 'still there?', sender: 'visitor' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'conversation_resolved' });
    expect(messages()).toHaveLength(0);
  });

  it('lists messages after a cursor, ascending, paginated', async () => {
    const { id, request, send } = await setup({ botReplyDelayMs: 60_000 });
    for (const text of ['one', 'two', 'three']) await send({ text, sender: 'visitor' });
    const all = await (await request(`/api/conversations/${id}/messages/`)).json();
    expect(all.meta.results_total).toBe(3);
    expect(all.results.map((m: { sequence: number }) => m.sequence)).toEqual([1, 2, 3]);
    const zero = await (await request(`/api/conversations/${id}/messages/?after=0`)).json();
    expect(zero.meta.results_total).toBe(3);
    const after = await (await request(`/api/conversations/${id}/messages/?after=1`)).json();
    expect(after.results.map((m: { text: string }) => m.text)).toEqual(['two', 'three']);
    const paged = await (await request(`/api/conversations/${id}/messages/?after=1&page_size=1`)).json();
    expect(paged.meta).toMatchObject({ page_total: 2, results_total: 2 });
    expect(paged.links.next).toBe(`http://localhost/api/conversations/${id}/messages/?after=1&page_size=1&page=2`);
    const none = await (await request(`/api/conversations/${id}/messages/?after=3`)).json();
    expect(none.results).toEqual([]);
    expect((await request(`/api/conversations/${id}/messages/?after=-1`)).status).toBe(400);
    expect((await request(`/api/conversations/${id}/messages/?after=x`)).status).toBe(400);
  });
});

describe('bot and team member', () => {
  it.each([
    ['When are you open on Saturday?', /Saturday from 9 am/],
    ['What are your opening hours', /Monday to Friday/],
    ['Can I book an appointment?', /appointments/],
    ['I need to reschedule', /appointments/],
    ['Do you take my insurance?', /insurance/],
    ['Question about my bill', /billing/],
  ])('answers %j with a keyword reply', (text, reply) => {
    expect(botReply(text)).toMatch(reply);
  });

  it('falls back to suggesting a person', () => {
    expect(botReply('qwerty')).toBe(BOT_FALLBACK);
    expect(BOT_FALLBACK).toContain('Talk to a person');
  });

  it('replies as the bot after a visitor message', async () => {
    const { id, request, send, messages } = await setup();
    await send({ text: 'When are you open?', sender: 'visitor' });
    await eventually(() => messages().length === 2);
    expect(messages()[1]).toMatchObject({ sequence: 2, sender: 'bot', author_name: 'Aimee' });
    const detail = await (await request(`/api/conversations/${id}/`)).json();
    expect(detail.message_stats).toMatchObject({ total: 2, visitor: 1, bot: 1, agent: 0 });
  });

  it('waits botReplyDelayMs before replying', async () => {
    // A wide margin between the check and the delay: this machine is shared, and a short sleep can overrun.
    const { send, messages } = await setup({ botReplyDelayMs: 1000 });
    const start = Date.now();
    await send({ text: 'hello', sender: 'visitor' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(messages()).toHaveLength(1);
    await eventually(() => messages().length === 2);
    expect(Date.now() - start).toBeGreaterThanOrEqual(990);
  });

  it('brings in a team member after escalate, who answers later messages instead of the bot', async () => {
    const { id, request, send, messages } = await setup();
    await request(`/api/conversations/${id}/escalate/`, { method: 'POST' });
    await eventually(() => messages().length === 1);
    expect(messages()[0]).toMatchObject({ sender: 'agent', author_name: 'Maria', text: agentGreeting('Maria') });
    await send({ text: 'I have a question about my bill', sender: 'visitor' });
    await eventually(() => messages().length === 3);
    expect(messages()[2]).toMatchObject({ sender: 'agent', text: AGENT_REPLY, sequence: 3 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(messages().filter((m) => m.sender === 'bot')).toHaveLength(0);
  });

  it('drops a pending bot reply when the conversation is escalated or resolved first', async () => {
    const escalated = await setup({ botReplyDelayMs: 30, agentJoinDelayMs: 60_000 });
    await escalated.send({ text: 'hours?', sender: 'visitor' });
    await escalated.request(`/api/conversations/${escalated.id}/escalate/`, { method: 'POST' });
    const resolved = await setup({ botReplyDelayMs: 30 });
    await resolved.send({ text: 'hours?', sender: 'visitor' });
    await resolved.request(`/api/conversations/${resolved.id}/resolve/`, { method: 'POST' });
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(escalated.messages()).toHaveLength(1);
    expect(resolved.messages()).toHaveLength(1);
  });

  it('close() clears pending replies', async () => {
    const { sim, send, messages } = await setup({ botReplyDelayMs: 30 });
    await send({ text: 'hello', sender: 'visitor' });
    sim.close();
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(messages()).toHaveLength(1);
  });
});
