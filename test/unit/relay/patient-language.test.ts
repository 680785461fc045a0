// The service hears the patient's language (an assumed field of the contract, src/relay/upstream/contract.ts): the
// relay passes it on when it creates a conversation and when the patient switches, and the simulator's bot answers
// in it (English and Spanish).
import { afterEach, describe, expect, it } from 'vitest';
import { createRelayHarness } from './relay-harness.ts';
import { CONVERSATION, MESSAGES } from '../../support/conversation-calls.ts';
import { botReply } from '../../../src/simulator/bot.ts';

const LANGUAGE = '/v1/conversation/language';

let harness: ReturnType<typeof createRelayHarness>;
afterEach(() => harness?.close());

const onlyConversation = () => [...harness.simulator.store.conversations.values()].at(-1)!;

async function start(body: Record<string, unknown>): Promise<string> {
  const response = await harness.fromFrame('/v1/conversations', { body: { client_id: 'demo-client', ...body } });
  expect(response.status).toBe(201);
  return ((await response.json()) as { conversation: string }).conversation;
}

/** Sends `text` and waits for the bot's answer to it. */
async function botAnswerTo(handle: string, text: string, key: string): Promise<string> {
  expect(
    (await harness.fromPanel(handle, MESSAGES, { body: { text }, headers: { 'Idempotency-Key': key } })).status,
  ).toBe(201);
  for (let attempt = 0; attempt < 250; attempt++) {
    const { messages } = (await (await harness.fromPanel(handle, `${MESSAGES}?after=0`)).json()) as {
      messages: { sender: string; text: string }[];
    };
    const bot = messages.filter((message) => message.sender === 'bot');
    if (bot.length > 0) return bot.at(-1)!.text;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('no answer from the bot');
}

describe("the patient's language", () => {
  it('a conversation started in Spanish reaches the service marked Spanish, and the bot answers in Spanish', async () => {
    harness = createRelayHarness();
    const handle = await start({ language: 'es' });
    expect(onlyConversation().language).toBe('es');
    const answer = await botAnswerTo(handle, 'Quisiera pedir una cita.', 'key-es-00001');
    expect(answer).toBe(botReply('Quisiera pedir una cita.', 'es'));
    expect(answer).toMatch(/^Puedo ayudarle con las citas/);
  });

  it("a conversation started without a language is the service's default, English", async () => {
    harness = createRelayHarness();
    const handle = await start({});
    expect(onlyConversation().language).toBe('en');
    expect(await botAnswerTo(handle, 'Can I book an appointment?', 'key-en-00001')).toMatch(
      /^I can help with appointments/,
    );
  });

  it.each([
    ['a tag the widget does not speak', 'nl'],
    ['a region the list does not name', 'es-MX'],
    ['not a string', 7],
    ['markup', '<b>'],
  ])('refuses %s at creation with bad_request, creating nothing', async (_why, language) => {
    harness = createRelayHarness();
    const response = await harness.fromFrame('/v1/conversations', { body: { client_id: 'demo-client', language } });
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe('bad_request');
    expect(harness.simulator.counters.conversationsCreated).toBe(0);
  });

  it('a switch tells the service, and the bot answers in the new language from then on', async () => {
    harness = createRelayHarness();
    const handle = await start({ language: 'en' });
    const response = await harness.fromPanel(handle, LANGUAGE, { method: 'PUT', body: { language: 'es' } });
    expect(response.status).toBe(204);
    expect(response.headers.get('Cache-Control')).toBe('no-store');
    expect(onlyConversation().language).toBe('es');
    expect(await botAnswerTo(handle, '¿Cuál es su horario?', 'key-sw-00001')).toMatch(/^Abrimos de lunes a viernes/);
  });

  it('a switch without a usable handle is session_expired, and changes nothing upstream', async () => {
    harness = createRelayHarness();
    const handle = await start({ language: 'en' });
    for (const headers of [{ Authorization: '' }, { Authorization: 'Bearer forged-handle-0000000000' }]) {
      const response = await harness.fromPanel(handle, LANGUAGE, { method: 'PUT', body: { language: 'es' }, headers });
      expect(response.status).toBe(401);
      expect((await response.json()).error.code).toBe('session_expired');
    }
    // End chat retires the handle: a copy of it switches nothing.
    expect((await harness.fromPanel(handle, CONVERSATION, { method: 'DELETE' })).status).toBe(204);
    const retired = await harness.fromPanel(handle, LANGUAGE, { method: 'PUT', body: { language: 'es' } });
    expect((await retired.json()).error.code).toBe('session_expired');
    expect(onlyConversation().language).toBe('en');
  });

  it.each([
    ['no body', undefined],
    ['a language the widget does not speak', { language: 'nl' }],
    ['another field', { language: 'es', text: 'x' }],
  ])('refuses a switch with %s as bad_request', async (_why, body) => {
    harness = createRelayHarness();
    const handle = await start({});
    const response = await harness.fromPanel(handle, LANGUAGE, { method: 'PUT', body: body ?? '' });
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe('bad_request');
    expect(onlyConversation().language).toBe('en');
  });

  it("a switch counts against the conversation's message quota", async () => {
    harness = createRelayHarness({ environment: { MESSAGES_PER_MINUTE_PER_CONVERSATION: '2' } });
    const handle = await start({});
    const statuses = [];
    for (let index = 0; index < 3; index++)
      statuses.push((await harness.fromPanel(handle, LANGUAGE, { method: 'PUT', body: { language: 'es' } })).status);
    expect(statuses).toEqual([204, 204, 429]);
  });
});
