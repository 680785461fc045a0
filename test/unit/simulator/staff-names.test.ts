// The simulator's bot and team member sign their messages with the names of the conversation's practice: the bot as
// the practice's configuration names it (`aimee_bot_name`, which the panel greets with), the team member from the seed.
import { afterEach, describe, expect, it } from 'vitest';
import { normalizeBotName } from '../../../src/shared/configuration.ts';
import { agentGreeting } from '../../../src/simulator/bot.ts';
import { CONFIGURATIONS, PRACTICES } from '../../../src/simulator/seed.ts';
import { authedSimulator, eventually } from './helpers.ts';

type Setup = Awaited<ReturnType<typeof authedSimulator>>;
const setups: Setup[] = [];
afterEach(() => {
  for (const s of setups.splice(0)) s.sim.close();
});

/** A conversation opened the way the relay opens one for `clientId`: with the practice of its configuration. */
async function conversationFor(clientId: string) {
  const s = await authedSimulator({ botReplyDelayMs: 0, agentJoinDelayMs: 0 });
  setups.push(s);
  const configuration = await (
    await s.request(`/api/conversations/webchat-configuration/?client_id=${clientId}&format=json`)
  ).json();
  const created = await s.json('/api/conversations/', 'POST', { practice: configuration.practice, channel: 'webchat' });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };
  const messages = () => s.sim.store.messages.get(id) ?? [];
  return { ...s, id, configuration, messages };
}

describe('who signs the practice side of a conversation', () => {
  it.each([
    ['smile-dental', 'Sunny', 'Grace'],
    ['demo-client', 'Aimee', 'Maria'],
  ])(
    'on %s the bot replies as its configuration’s aimee_bot_name, the team member by the practice’s seed',
    async (clientId, bot, teamMember) => {
      const { id, configuration, request, json, messages } = await conversationFor(clientId);
      expect(configuration.aimee_bot_name).toBe(bot);
      await json(`/api/conversations/${id}/messages/`, 'POST', { text: 'When are you open?', sender: 'visitor' });
      await eventually(() => messages().length === 2);
      expect(messages()[1]).toMatchObject({ sender: 'bot', author_name: bot });
      await request(`/api/conversations/${id}/escalate/`, { method: 'POST' });
      await eventually(() => messages().length === 3);
      expect(messages()[2]).toMatchObject({
        sender: 'agent',
        author_name: teamMember,
        text: agentGreeting(teamMember),
      });
    },
  );

  it('writeAs signs with the same names', async () => {
    const { sim, id, messages } = await conversationFor('smile-dental');
    expect(sim.writeAs(id, 'bot', 'one')).toBe(true);
    expect(sim.writeAs(id, 'agent', 'two')).toBe(true);
    expect(messages().map((m) => m.author_name)).toEqual(['Sunny', 'Grace']);
    expect(sim.writeAs('cnv_unknown', 'bot', 'three')).toBe(false);
  });

  it('every configuration of a practice greets with the name its bot signs with (the create names only the practice)', async () => {
    const s = await authedSimulator();
    setups.push(s);
    for (const config of CONFIGURATIONS.filter((c) => PRACTICES.find((p) => p.id === c.practice)?.granted)) {
      const created = await s.json('/api/conversations/', 'POST', { practice: config.practice, channel: 'webchat' });
      const { id } = (await created.json()) as { id: string };
      expect(s.sim.writeAs(id, 'bot', 'hi')).toBe(true);
      const signed = s.sim.store.messages.get(id)?.[0]?.author_name;
      // What the panel shows is the relay's normalised name, so that is what must agree.
      expect(normalizeBotName(signed), config.id).toBe(normalizeBotName(config.botName));
    }
  });

  it('the seed gives every practice a team member name of its own', () => {
    const names = PRACTICES.map((practice) => practice.teamMemberName);
    expect(names.every((name) => name.trim() !== '')).toBe(true);
    expect(new Set(names).size).toBe(names.length);
  });
});
