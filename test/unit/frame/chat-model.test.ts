import { describe, expect, it } from 'vitest';
import { TransportError } from '../../../src/frame/transport.ts';
import { POLL_FAST_MS, POLL_IDLE_MS, POLL_SLOW_MS } from '../../../src/frame/model/poll-cadence.ts';
import { createTestModel, settle } from './fakes.ts';

const texts = (model: ReturnType<typeof createTestModel>['model']) =>
  model.messages.value.map((message) => `${message.sender}:${message.text}:${message.delivery ?? ''}`);

describe('sending', () => {
  it('creates the conversation on the first message, not before, and shows the message at once', async () => {
    const { model, relay } = createTestModel();
    model.setPanelOpen(true);
    expect(relay.calls).toEqual([]);
    model.send('  Can I book a cleaning?  ');
    expect(texts(model)).toEqual(['visitor:Can I book a cleaning?:sending']);
    await settle();
    expect(relay.calls.slice(0, 2)).toEqual(['create', 'send key-2']);
    expect(texts(model)).toEqual(['visitor:Can I book a cleaning?:sent']);
    expect(model.phase.value).toBe('open');
  });

  it('ignores blank messages', async () => {
    const { model, relay } = createTestModel();
    model.send('   ');
    await settle();
    expect(model.messages.value).toEqual([]);
    expect(relay.calls).toEqual([]);
  });

  it('retries network errors automatically with the same Idempotency-Key, and delivers once', async () => {
    const { model, relay, clock } = createTestModel();
    relay.failures.push(new TransportError('network'), new TransportError('upstream_unavailable'));
    model.send('hello');
    await settle();
    expect(texts(model)).toEqual(['visitor:hello:retrying']);
    expect(model.connectionTrouble.value).toBe(true);
    await clock.advance(60_000);
    expect(texts(model)).toEqual(['visitor:hello:sent']);
    expect(model.connectionTrouble.value).toBe(false);
    const sends = relay.calls.filter((call) => call.startsWith('send'));
    expect(new Set(sends)).toEqual(new Set(['send key-2']));
    expect(relay.visitorMessages('handle-1')).toHaveLength(1);
  });

  it('retries a create that failed with the same Idempotency-Key, and a new conversation with a new one', async () => {
    const { model, relay, clock } = createTestModel();
    relay.failures.push(new TransportError('network'), new TransportError('upstream_timeout'));
    model.send('hello');
    await settle();
    await clock.advance(60_000);
    expect(texts(model)).toEqual(['visitor:hello:sent']);
    expect(relay.createKeys).toHaveLength(3);
    expect(new Set(relay.createKeys).size).toBe(1);
    model.endChat();
    model.send('hello again');
    await settle();
    expect(relay.createKeys).toHaveLength(4);
    expect(relay.createKeys[3]).not.toBe(relay.createKeys[0]);
  });

  it('never lets a later message overtake one waiting for a retry: upstream gets them in the order written', async () => {
    const { model, relay, clock } = createTestModel();
    model.send('first');
    await settle();
    relay.failures.push(new TransportError('network'));
    model.send('second');
    model.send('third');
    await settle();
    expect(texts(model)).toEqual(['visitor:first:sent', 'visitor:second:retrying', 'visitor:third:sending']);
    await clock.advance(60_000);
    expect(texts(model)).toEqual(['visitor:first:sent', 'visitor:second:sent', 'visitor:third:sent']);
    expect(relay.visitorMessages('handle-1').map((message) => message.text)).toEqual(['first', 'second', 'third']);
  });

  it('waits at least as long as Retry-After says', async () => {
    const { model, relay, clock } = createTestModel();
    await settle();
    relay.failures.push(new TransportError('rate_limited', 20_000));
    model.send('hello');
    await settle();
    expect(clock.pending().some((delay) => delay >= 20_000)).toBe(true);
    await clock.advance(19_000);
    expect(texts(model)).toEqual(['visitor:hello:retrying']);
    await clock.advance(11_000);
    expect(texts(model)).toEqual(['visitor:hello:sent']);
  });

  it('marks a message failed after the automatic attempts, keeps its text, and a retry sends it once', async () => {
    const { model, relay, clock } = createTestModel();
    for (let i = 0; i < 6; i++) relay.failures.push(new TransportError('network'));
    model.send('Please call me back');
    await clock.advance(10 * 60_000);
    expect(texts(model)).toEqual(['visitor:Please call me back:failed']);
    const [failed] = model.messages.value;
    model.retry(failed!.key);
    await settle();
    expect(texts(model)).toEqual(['visitor:Please call me back:sent']);
    const keys = new Set(relay.calls.filter((call) => call.startsWith('send')));
    expect(keys).toEqual(new Set([`send ${failed!.idempotencyKey}`]));
    expect(relay.visitorMessages('handle-1').map((message) => message.text)).toEqual(['Please call me back']);
  });

  it('does not retry what retrying cannot fix', async () => {
    const { model, relay, clock } = createTestModel();
    relay.failures.push(new TransportError('bad_request'));
    model.send('hello');
    await clock.advance(60_000);
    expect(texts(model)).toEqual(['visitor:hello:failed']);
  });

  it('starts a new conversation when the handle has expired', async () => {
    const { model, relay } = createTestModel();
    model.send('first');
    await settle();
    relay.conversations.delete('handle-1');
    model.send('second');
    await settle();
    expect(relay.calls.filter((call) => call === 'create')).toHaveLength(2);
    expect(relay.visitorMessages('handle-2').map((message) => message.text)).toEqual(['second']);
  });
});

describe('polling', () => {
  it('polls quickly after a send, then slower when idle, slowly while closed, and not at all while hidden', async () => {
    const { model, clock } = createTestModel();
    model.setPanelOpen(true);
    model.send('hello');
    await settle();
    await clock.advance(0); // the poll right after sending
    expect(clock.pending()).toContain(POLL_FAST_MS);
    await clock.advance(45_000);
    expect(clock.pending()).toContain(POLL_IDLE_MS);
    model.setPanelOpen(false);
    expect(clock.pending()).toContain(POLL_SLOW_MS);
    model.setTabHidden(true);
    const pollDelays = [POLL_FAST_MS, POLL_IDLE_MS, POLL_SLOW_MS];
    expect(clock.pending().filter((delay) => pollDelays.includes(delay))).toEqual([]);
    model.setTabHidden(false);
    await clock.advance(0);
    expect(clock.pending()).toContain(POLL_SLOW_MS);
  });

  it('shows replies, stops the typing indicator, and announces each reply once', async () => {
    const { model, relay, clock } = createTestModel();
    model.setPanelOpen(true);
    model.send('hours?');
    await settle();
    expect(model.typing.value).toBe(true);
    relay.reply('handle-1', 'We open at 8.');
    await clock.advance(POLL_FAST_MS);
    expect(texts(model)).toEqual(['visitor:hours?:sent', 'bot:We open at 8.:']);
    expect(model.typing.value).toBe(false);
    expect(model.announcement.value?.text).toBe('We open at 8.');
    await clock.advance(POLL_FAST_MS * 3);
    expect(model.messages.value).toHaveLength(2);
  });

  it('counts replies that arrive while the panel is closed, and clears the count on opening', async () => {
    const { model, relay, clock, unread } = createTestModel();
    model.send('hi');
    await settle();
    relay.reply('handle-1', 'one');
    relay.reply('handle-1', 'two');
    await clock.advance(POLL_SLOW_MS);
    expect(unread.at(-1)).toBe(2);
    model.setPanelOpen(true);
    expect(unread.at(-1)).toBe(0);
  });

  it('says when the practice has resolved the conversation', async () => {
    const { model, relay, clock } = createTestModel();
    model.setPanelOpen(true);
    model.send('thanks');
    await settle();
    relay.conversations.get('handle-1')!.status = 'resolved';
    await clock.advance(POLL_FAST_MS);
    expect(model.phase.value).toBe('resolved');
  });
});

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
