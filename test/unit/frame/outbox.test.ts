// The outbox, on its own and through the panel's model, with a fake relay and a manual clock: the conversation opened
// by the first message, ordered delivery, automatic retries with one Idempotency-Key, Retry-After, failures left for
// the visitor's "Try again", and retries stopped by dispose().
import { signal } from '@preact/signals';
import { describe, expect, it } from 'vitest';
import { TransportError } from '../../../src/frame/transport.ts';
import type { ChatMessage } from '../../../src/frame/model/message-list.ts';
import { createOutbox } from '../../../src/frame/model/outbox.ts';
import { createFakeRelay, createManualClock, createTestModel, settle } from './fakes.ts';

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
    expect(relay.calls.slice(0, 2)).toEqual(['create', 'send key-1']);
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
    expect(new Set(sends)).toEqual(new Set(['send key-1']));
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
    expect(keys).toEqual(new Set([`send ${failed!.key}`]));
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
  it('dispose() stops a send that was retrying: nothing goes out afterwards, no timer is left', async () => {
    const { model, relay, clock } = createTestModel();
    relay.failures.push(new TransportError('network'));
    model.send('hello');
    await settle();
    expect(model.connectionTrouble.value).toBe(true);
    model.dispose();
    expect(clock.pending()).toEqual([]);
    await clock.advance(60_000);
    // The one attempt (its create failed), and nothing since.
    expect(relay.calls).toEqual(['create']);
  });
});

/** The outbox alone, as the chat model builds it: a fake relay, a manual clock, and what it hands back recorded. */
function createTestOutbox() {
  const relay = createFakeRelay();
  const clock = createManualClock();
  const messages = signal<ChatMessage[]>([]);
  const heard: string[] = [];
  let conversation: Promise<string> | null = null;
  let key = 0;
  const outbox = createOutbox({
    transport: relay.transport,
    messages,
    // As the chat model does: one conversation at a time, opened again after a failure or once the handle expired.
    ensureConversation: () =>
      (conversation ??= relay.transport.createConversation('demo-client', `create-${key}`).then(
        (created) => created.conversation,
        (error: unknown) => {
          conversation = null;
          throw error;
        },
      )),
    onExpired: () => {
      heard.push('expired');
      conversation = null;
    },
    onResolved: () => heard.push('resolved'),
    onSent: () => heard.push('sent'),
    now: clock.now,
    random: () => 0.5,
    newKey: () => `key-${++key}`,
    setTimer: clock.setTimer,
    clearTimer: clock.clearTimer,
  });
  const shown = () => messages.value.map((message) => `${message.text}:${message.delivery}`);
  return { outbox, relay, clock, heard, shown };
}

describe('the outbox on its own', () => {
  it('sends in the order written, each once, and says when each went out', async () => {
    const test = createTestOutbox();
    test.relay.failures.push(new TransportError('network'));
    test.outbox.enqueue('first');
    test.outbox.enqueue('second');
    await settle();
    expect(test.shown()).toEqual(['first:retrying', 'second:sending']);
    expect(test.outbox.connectionTrouble.value).toBe(true);
    await test.clock.advance(60_000);
    expect(test.shown()).toEqual(['first:sent', 'second:sent']);
    expect(test.outbox.connectionTrouble.value).toBe(false);
    expect(test.heard).toEqual(['sent', 'sent']);
    expect(test.relay.visitorMessages('handle-1').map((message) => message.text)).toEqual(['first', 'second']);
  });

  it('hands an expired handle back, and the message goes out in the conversation opened next', async () => {
    const test = createTestOutbox();
    test.outbox.enqueue('first');
    await settle();
    test.relay.conversations.delete('handle-1');
    test.outbox.enqueue('second');
    await settle();
    expect(test.heard).toEqual(['sent', 'expired', 'sent']);
    expect(test.relay.visitorMessages('handle-2').map((message) => message.text)).toEqual(['second']);
  });

  it('abandon() (the conversation left, or the panel disposed of) stops its retries and the trouble notice', async () => {
    const test = createTestOutbox();
    test.relay.failures.push(new TransportError('network'));
    test.outbox.enqueue('hello');
    await settle();
    expect(test.outbox.connectionTrouble.value).toBe(true);
    test.outbox.abandon();
    expect(test.outbox.connectionTrouble.value).toBe(false);
    expect(test.clock.pending()).toEqual([]);
    await test.clock.advance(60_000);
    // The one attempt (its create failed), and nothing since.
    expect(test.relay.calls).toEqual(['create']);
    expect(test.shown()).toEqual(['hello:retrying']);
  });
});
