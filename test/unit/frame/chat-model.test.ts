// The composed model: the conversation's lifecycle (escalating, ending, resuming), the status shown, and analytics.
// Delivery is in outbox.test.ts, following the conversation (stream and polling) in follower.test.ts.
import { describe, expect, it } from 'vitest';
import { TransportError } from '../../../src/frame/transport.ts';
import { POLL_FAST_MS, POLL_IDLE_MS } from '../../../src/frame/model/poll-cadence.ts';
import { createTestModel, settle } from './fakes.ts';

const texts = (model: ReturnType<typeof createTestModel>['model']) =>
  model.messages.value.map((message) => `${message.sender}:${message.text}:${message.delivery ?? ''}`);

describe('escalation, ending and resuming', () => {
  it('escalates, and an agent message arrives as an agent message', async () => {
    const { model, relay, clock, tracked } = createTestModel();
    model.setPanelOpen(true);
    expect(await model.escalate()).toBeNull();
    expect(model.phase.value).toBe('escalated');
    relay.reply('handle-1', 'Hi, this is Maria.', 'agent');
    await clock.advance(POLL_FAST_MS);
    expect(model.messages.value.at(-1)).toMatchObject({
      sender: 'agent',
      authorName: 'Maria',
      text: 'Hi, this is Maria.',
    });
    expect(tracked).toContain('escalated');
  });

  it('keeps the newest status it has seen: an older reading (another relay instance) does not undo it, a newer one does', async () => {
    const { model, relay, clock } = createTestModel();
    model.setPanelOpen(true);
    expect(await model.escalate()).toBeNull();
    expect(model.phase.value).toBe('escalated');
    // The next poll lands on an instance whose reading predates the escalation.
    let polls = 0;
    const answer = (status: 'open' | 'escalated', statusAsOf: number) => async () => {
      polls += 1;
      return { messages: [], cursor: 0, status, status_as_of: statusAsOf };
    };
    relay.transport.messagesAfter = answer('open', 0);
    await clock.advance(POLL_FAST_MS);
    expect(polls).toBe(1);
    expect(model.phase.value).toBe('escalated');
    // Staff hand the conversation back later: a newer reading, applied.
    relay.transport.messagesAfter = answer('open', 1_000);
    await clock.advance(POLL_IDLE_MS);
    expect(polls).toBeGreaterThanOrEqual(2);
    expect(model.phase.value).toBe('open');
  });

  it('reports an escalation that failed, as a code', async () => {
    const { model, relay } = createTestModel();
    relay.failures.push(new TransportError('upstream_unavailable'));
    expect(await model.escalate()).toBe('upstream_unavailable');
  });

  it('end chat forgets the conversation in this browser and offers a new one', async () => {
    const storage = new MemoryStorage();
    const { model, tracked } = createTestModel({ storage });
    model.send('hello');
    await settle();
    expect(storage.length).toBe(1);
    model.endChat();
    expect(model.messages.value).toEqual([]);
    expect(model.phase.value).toBe('ended');
    expect(storage.length).toBe(0);
    expect(tracked).toContain('chat_ended');
  });

  it('end chat retires the handle on the relay too, so a copy of it opens nothing (issue 14)', async () => {
    const { model, relay } = createTestModel();
    model.send('hello');
    await settle();
    model.endChat();
    await settle();
    expect(relay.calls).toContain('end');
    expect(relay.conversations.has('handle-1')).toBe(false);
  });

  it('end chat still forgets locally when the relay cannot be reached', async () => {
    const storage = new MemoryStorage();
    const { model, relay } = createTestModel({ storage });
    model.send('hello');
    await settle();
    relay.failures.push(new TransportError('network'));
    model.endChat();
    await settle();
    expect(model.phase.value).toBe('ended');
    expect(storage.length).toBe(0);
  });

  it('end chat stops a send that was retrying: the trouble notice goes, and nothing is sent afterwards', async () => {
    const { model, relay, clock } = createTestModel();
    model.send('hello');
    await settle();
    relay.failures.push(new TransportError('upstream_unavailable'));
    model.send('are you there?');
    await settle();
    expect(model.connectionTrouble.value).toBe(true);
    model.endChat();
    expect(model.connectionTrouble.value).toBe(false);
    const sends = relay.calls.filter((call) => call.startsWith('send')).length;
    await clock.advance(5 * 60_000);
    expect(relay.calls.filter((call) => call.startsWith('send'))).toHaveLength(sends);
    expect(model.connectionTrouble.value).toBe(false);
  });

  it('end chat while a send is on its way: its failure brings no trouble notice and no retry', async () => {
    const { model, relay, clock } = createTestModel();
    relay.failures.push(new TransportError('network'));
    model.send('hello');
    model.endChat();
    await settle();
    expect(model.connectionTrouble.value).toBe(false);
    await clock.advance(5 * 60_000);
    expect(relay.calls).toEqual(['create']);
    expect(model.connectionTrouble.value).toBe(false);
  });

  it('a conversation the relay no longer reads out (resolved past its grace period) shows as resolved and is forgotten', async () => {
    const storage = new MemoryStorage();
    const first = createTestModel({ storage });
    first.model.send('hello');
    await settle();
    first.model.dispose();
    expect(storage.length).toBe(1);

    const second = createTestModel({ storage, relay: first.relay });
    first.relay.failures.push(new TransportError('conversation_resolved'));
    second.model.resume();
    await settle();
    expect(second.model.phase.value).toBe('resolved');
    expect(storage.length).toBe(0);
  });

  it('resumes the conversation after a reload from the handle alone: the text comes back from the relay', async () => {
    const storage = new MemoryStorage();
    const first = createTestModel({ storage });
    first.model.send('my tooth hurts');
    await settle();
    first.relay.reply('handle-1', 'Sorry to hear that.');
    first.model.dispose();
    expect(storage.values().join('')).not.toContain('tooth');

    const second = createTestModel({ storage, relay: first.relay });
    second.model.resume();
    await settle();
    expect(texts(second.model)).toEqual(['visitor:my tooth hurts:sent', 'bot:Sorry to hear that.:']);
    // History is not announced again.
    expect(second.model.announcement.value).toBeNull();
  });
});

describe('analytics', () => {
  it('tracks only coarse events', async () => {
    const { model, tracked } = createTestModel();
    model.setPanelOpen(true);
    model.send('hello');
    await settle();
    await model.escalate();
    model.endChat();
    expect(tracked).toEqual(['chat_opened', 'message_sent', 'escalated', 'chat_ended']);
  });
});

class MemoryStorage implements Storage {
  #items = new Map<string, string>();
  get length() {
    return this.#items.size;
  }
  clear() {
    this.#items.clear();
  }
  getItem(key: string) {
    return this.#items.get(key) ?? null;
  }
  key(index: number) {
    return [...this.#items.keys()][index] ?? null;
  }
  removeItem(key: string) {
    this.#items.delete(key);
  }
  setItem(key: string, value: string) {
    this.#items.set(key, value);
  }
  values() {
    return [...this.#items.values()];
  }
}
