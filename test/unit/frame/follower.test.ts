// The follower, on its own and through the panel's model, with a fake relay and a manual clock: polling at its
// cadence where there is no stream, and with a relay that serves live streams: replies by the stream and not by
// polling, one stream only once a conversation exists and kept open while closed or hidden, one read of what was
// missed after each gap with each message shown once and in order, the fallback to polling (silence, refusals, drops
// in a row) and the stream tried again later, error and reconnect events, status by status_as_of, and the count of
// replies that arrived while the tab was hidden.
import { describe, expect, it } from 'vitest';
import { STREAM_SILENCE_LIMIT_MS, type WireMessage } from '../../../src/shared/wire.ts';
import { createFollower, STREAM_ATTEMPTS, STREAM_RETRY_MS } from '../../../src/frame/model/follower.ts';
import { POLL_FAST_MS, POLL_IDLE_MS, POLL_SLOW_MS } from '../../../src/frame/model/poll-cadence.ts';
import { TransportError } from '../../../src/frame/transport.ts';
import { createFakeRelay, createManualClock, createTestModel, settle } from './fakes.ts';

type Test = ReturnType<typeof createTestModel>;

const texts = ({ model }: Test) => model.messages.value.map((message) => `${message.sender}:${message.text}`);
const polls = ({ relay }: Test) => relay.calls.filter((call) => call.startsWith('poll'));
const streamCalls = ({ relay }: Test) => relay.calls.filter((call) => call.startsWith('stream'));
const only = (test: Test) => {
  const open = test.relay.openStreams();
  expect(open).toHaveLength(1);
  return open[0]!;
};
/** A reply stored by the practice and carried by the panel's open stream, as the relay's watch does. */
const pushReply = (test: Test, text: string, sender: 'bot' | 'agent' = 'agent') => {
  const message = test.relay.reply('handle-1', text, sender);
  only(test).deliver({ type: 'message', data: message });
  return message;
};

/** A started conversation whose first exchange came by the stream. */
async function started(options: { open?: boolean } = {}) {
  const test = createTestModel({ stream: true });
  test.model.setPanelOpen(options.open ?? true);
  test.model.send('hello');
  await settle();
  test.relay.reply('handle-1', 'Hi! How can I help?');
  const stream = only(test);
  for (const message of test.relay.conversations.get('handle-1')!.messages)
    stream.deliver({ type: 'message', data: message });
  stream.deliver({ type: 'status', data: { status: 'open', status_as_of: 1 } });
  return test;
}

const withDelivery = (model: Test['model']) =>
  model.messages.value.map((message) => `${message.sender}:${message.text}:${message.delivery ?? ''}`);

describe('polling, where there is no stream', () => {
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
    expect(withDelivery(model)).toEqual(['visitor:hours?:sent', 'bot:We open at 8.:']);
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

describe('the live stream', () => {
  it('opens no stream before a conversation exists, then one, before the first message goes out', async () => {
    const test = createTestModel({ stream: true });
    test.model.setPanelOpen(true);
    await test.clock.advance(60_000);
    expect(test.relay.calls).toEqual([]);
    test.model.send('hello');
    await settle();
    // Listening first, so that the relay reads quickly for the reply to the message that follows.
    expect(test.relay.calls).toEqual(['create', 'stream 0', 'send key-1']);
  });

  it('shows replies from the stream, announced once, and never polls while it works', async () => {
    const test = await started();
    pushReply(test, 'Hi, this is Maria.');
    expect(texts(test)).toEqual(['visitor:hello', 'bot:Hi! How can I help?', 'agent:Hi, this is Maria.']);
    expect(test.model.announcement.value?.text).toBe('Hi, this is Maria.');
    expect(test.model.typing.value).toBe(false);
    for (let i = 0; i < 20; i++) {
      // Opening and closing the panel changes nothing: the stream serves both.
      test.model.setPanelOpen(i % 2 === 0);
      await test.clock.advance(10_000);
      only(test).deliver({ type: 'alive' });
    }
    expect(polls(test)).toEqual([]);
    expect(streamCalls(test)).toEqual(['stream 0']);
  });

  it('a visitor message the stream brings before its send is answered is shown once', async () => {
    const test = createTestModel({ stream: true });
    test.model.setPanelOpen(true);
    const sent = new Promise<void>((resolve) => {
      const send = test.relay.transport.sendMessage;
      test.relay.transport.sendMessage = async (...args) => {
        const message = await send(...args);
        only(test).deliver({ type: 'message', data: message });
        resolve();
        return message;
      };
    });
    test.model.send('hello');
    await sent;
    await settle();
    expect(texts(test)).toEqual(['visitor:hello']);
    expect(test.model.messages.value[0]!.delivery).toBe('sent');
  });

  it('stays open while the panel is closed and the tab hidden: the unread count and the hidden count are live', async () => {
    const test = await started({ open: false });
    test.model.setTabHidden(true);
    for (let i = 0; i < 20; i++) {
      await test.clock.advance(15_000);
      only(test).deliver({ type: 'alive' });
    }
    pushReply(test, 'We can see you at 3.');
    expect(test.unread.at(-1)).toBe(2); // the bot's reply to "hello", then this one
    expect(test.alerts).toEqual([1]);
    pushReply(test, 'Does that work?');
    expect(test.alerts).toEqual([1, 2]);
    expect(polls(test)).toEqual([]);
    test.model.setTabHidden(false);
    expect(test.alerts).toEqual([1, 2, 0]);
    expect(streamCalls(test)).toEqual(['stream 0']);
  });

  it("counts for the title only replies that arrive while hidden: not history, not while visible, not the visitor's", async () => {
    const test = await started();
    pushReply(test, 'visible reply');
    test.model.setTabHidden(true);
    only(test).deliver({ type: 'message', data: test.relay.reply('handle-1', 'own message', 'agent') });
    expect(test.alerts).toEqual([1]);
    test.model.setTabHidden(false);
    await settle();
    expect(test.alerts).toEqual([1, 0]);
    // Visible again, with no reply while hidden: nothing to clear.
    test.model.setTabHidden(true);
    test.model.setTabHidden(false);
    expect(test.alerts).toEqual([1, 0]);
  });

  it('ignores events from a stream it has left', async () => {
    const test = await started();
    const first = only(test);
    test.model.reconnect();
    await settle();
    expect(first.stopped).toBe(true);
    first.deliver({ type: 'message', data: test.relay.reply('handle-1', 'late, from the old stream') });
    first.deliver({ type: 'error', data: new TransportError('session_expired') });
    expect(texts(test)).not.toContain('bot:late, from the old stream');
    expect(test.model.phase.value).toBe('open');
  });

  it('dispose() stops the stream', async () => {
    const test = await started();
    test.model.dispose();
    expect(test.relay.openStreams()).toEqual([]);
  });
});

describe('after a gap, one read of what was missed, each message once and in order', () => {
  const missedWhileAway = (test: Test) => [
    test.relay.reply('handle-1', 'missed one', 'agent'),
    test.relay.reply('handle-1', 'missed two', 'agent'),
  ];

  it('a reconnect event: a new stream at once, after the cursor, whose catch-up is the one read of the gap', async () => {
    const test = await started();
    const missed = missedWhileAway(test);
    only(test).deliver({ type: 'reconnect' });
    await settle();
    expect(polls(test)).toEqual([]);
    expect(streamCalls(test)).toEqual(['stream 0', 'stream 2']);
    // The relay's new stream reads what was missed first (its catch-up), then goes on: each shown once, in order,
    // the last one repeated as an overlap.
    for (const message of missed) only(test).deliver({ type: 'message', data: message });
    only(test).deliver({ type: 'message', data: missed[1]! });
    pushReply(test, 'and now');
    expect(texts(test)).toEqual([
      'visitor:hello',
      'bot:Hi! How can I help?',
      'agent:missed one',
      'agent:missed two',
      'agent:and now',
    ]);
  });

  it('a reconnect event on a stream that has said nothing yet: one read first, then a new stream', async () => {
    const test = await started();
    only(test).deliver({ type: 'reconnect' });
    await settle();
    missedWhileAway(test);
    // The new stream is told to reconnect before its first word (a stopping instance may answer every new stream
    // so): it is not reopened at once, the gap is read by a poll.
    only(test).deliver({ type: 'reconnect' });
    await settle();
    expect(polls(test)).toEqual(['poll 2']);
    expect(texts(test).slice(-2)).toEqual(['agent:missed one', 'agent:missed two']);
  });

  it.each([
    ['the tab shown again', (test: Test) => test.model.setTabHidden(false), false],
    ['the page back from the back-forward cache, or back online', (test: Test) => test.model.reconnect(), true],
  ])('%s: one read, and the stream after it', async (_what, gap, reopens) => {
    const test = await started();
    test.model.setTabHidden(true);
    missedWhileAway(test);
    gap(test);
    await settle();
    expect(polls(test)).toEqual(['poll 2']);
    expect(texts(test).slice(-2)).toEqual(['agent:missed one', 'agent:missed two']);
    expect(streamCalls(test)).toEqual(reopens ? ['stream 0', 'stream 4'] : ['stream 0']);
    expect(test.relay.openStreams()).toHaveLength(1);
  });

  it("a stream message that overtakes the read is still shown in the conversation's order", async () => {
    const test = await started();
    const [one, two] = missedWhileAway(test);
    const three = test.relay.reply('handle-1', 'newest', 'agent');
    // The read is slow: the stream brings the newest message first.
    const read = test.relay.transport.messagesAfter;
    let release!: () => void;
    test.relay.transport.messagesAfter = async (...args) => {
      await new Promise<void>((resolve) => (release = resolve));
      return read(...args);
    };
    test.model.setTabHidden(false);
    await settle();
    only(test).deliver({ type: 'message', data: three });
    release();
    await settle();
    expect(texts(test).slice(-3)).toEqual(['agent:missed one', 'agent:missed two', 'agent:newest']);
    expect(
      test.model.messages.value
        .map((message) => message.id)
        .filter((id) => id === one!.id || id === two!.id || id === three.id),
    ).toHaveLength(3);
  });
});

describe('falling back to polling, and trying the stream again', () => {
  it('no byte within the silence limit (a proxy that buffers): polls at once and on the cadence, and tries the stream again later', async () => {
    const test = await started();
    await test.clock.advance(STREAM_SILENCE_LIMIT_MS - 1000);
    expect(polls(test)).toEqual([]);
    await test.clock.advance(1000);
    expect(test.relay.openStreams()).toEqual([]);
    expect(polls(test)).toEqual(['poll 2']);
    // Replies still arrive, by polling.
    test.relay.reply('handle-1', 'by polling', 'agent');
    await test.clock.advance(POLL_IDLE_MS);
    expect(texts(test).at(-1)).toBe('agent:by polling');
    await test.clock.advance(STREAM_RETRY_MS - POLL_IDLE_MS);
    expect(streamCalls(test)).toEqual(['stream 0', 'stream 3']);
    expect(test.relay.openStreams()).toHaveLength(1);
    // The stream works again: polling stops.
    const pollsBefore = polls(test).length;
    only(test).deliver({ type: 'status', data: { status: 'open', status_as_of: 2 } });
    await test.clock.advance(30_000);
    only(test).deliver({ type: 'alive' });
    await test.clock.advance(30_000);
    expect(polls(test)).toHaveLength(pollsBefore);
  });

  it('heartbeats keep the stream: no fallback however long it is quiet otherwise', async () => {
    const test = await started();
    for (let i = 0; i < 10; i++) {
      await test.clock.advance(STREAM_SILENCE_LIMIT_MS - 1);
      only(test).deliver({ type: 'alive' });
    }
    expect(polls(test)).toEqual([]);
    expect(streamCalls(test)).toEqual(['stream 0']);
  });

  it('a dropped stream is read after and reopened; drops in a row fall back to polling', async () => {
    const test = await started();
    for (let attempt = 1; attempt < STREAM_ATTEMPTS; attempt++) {
      only(test).deliver({ type: 'error', data: new TransportError('network') });
      expect(test.relay.openStreams()).toEqual([]);
      // Soon (a jittered backoff of a second or two), well within the silence limit.
      await test.clock.advance(5_000);
      expect(test.relay.openStreams()).toHaveLength(1);
    }
    expect(polls(test)).toHaveLength(STREAM_ATTEMPTS - 1);
    only(test).deliver({ type: 'error', data: new TransportError('network') });
    await test.clock.advance(60_000);
    expect(test.relay.openStreams()).toEqual([]);
    expect(streamCalls(test)).toHaveLength(STREAM_ATTEMPTS);
    expect(polls(test).length).toBeGreaterThan(STREAM_ATTEMPTS);
  });

  it('a stream that delivers resets the count of drops', async () => {
    const test = await started();
    for (let round = 0; round < STREAM_ATTEMPTS * 2; round++) {
      only(test).deliver({ type: 'error', data: new TransportError('network') });
      await test.clock.advance(5_000);
      only(test).deliver({ type: 'status', data: { status: 'open', status_as_of: 1 } });
    }
    expect(test.relay.openStreams()).toHaveLength(1);
  });

  it.each([
    ["not a stream (a proxy's page)", new TransportError('bad_response'), STREAM_RETRY_MS],
    [
      'too many streams (Retry-After beyond the retry delay)',
      new TransportError('rate_limited', STREAM_RETRY_MS * 2),
      STREAM_RETRY_MS * 2,
    ],
    ['the relay failing upstream', new TransportError('upstream_unavailable'), STREAM_RETRY_MS],
  ])(
    '%s: polls at once, and tries the stream again after the retry delay or Retry-After',
    async (_what, error, retryAfter) => {
      const test = await started();
      only(test).deliver({ type: 'error', data: error });
      await test.clock.advance(0);
      expect(polls(test)).toEqual(['poll 2']);
      await test.clock.advance(retryAfter - 1);
      expect(streamCalls(test)).toEqual(['stream 0']);
      await test.clock.advance(1);
      expect(streamCalls(test)).toHaveLength(2);
    },
  );

  it("without a stream at all (the demo's preview), it polls as before", async () => {
    const test = createTestModel();
    test.model.setPanelOpen(true);
    test.model.send('hello');
    await test.clock.advance(60_000);
    expect(polls(test).length).toBeGreaterThan(5);
  });
});

describe('what the stream says about the conversation', () => {
  it('session_expired ends the conversation here, as a read would say it', async () => {
    const test = await started();
    only(test).deliver({ type: 'error', data: new TransportError('session_expired') });
    expect(test.model.phase.value).toBe('ended');
    expect(test.relay.openStreams()).toEqual([]);
    await test.clock.advance(STREAM_RETRY_MS * 2);
    expect(streamCalls(test)).toEqual(['stream 0']);
    expect(polls(test)).toEqual([]);
  });

  it('conversation_resolved shows it resolved and stops listening', async () => {
    const test = await started();
    only(test).deliver({ type: 'error', data: new TransportError('conversation_resolved') });
    expect(test.model.phase.value).toBe('resolved');
    expect(test.relay.openStreams()).toEqual([]);
  });

  it('a new conversation after an ended one gets a stream again', async () => {
    const test = await started();
    only(test).deliver({ type: 'error', data: new TransportError('session_expired') });
    test.model.send('starting again');
    await settle();
    expect(test.relay.openStreams().map((stream) => stream.handle)).toEqual(['handle-2']);
  });

  it('keeps the status with the newest status_as_of, whether it came by the stream or a read', async () => {
    const test = await started();
    const stream = only(test);
    stream.deliver({ type: 'status', data: { status: 'escalated', status_as_of: 10 } });
    expect(test.model.phase.value).toBe('escalated');
    stream.deliver({ type: 'status', data: { status: 'open', status_as_of: 5 } });
    expect(test.model.phase.value).toBe('escalated');
    // A read from an instance whose reading is older changes nothing either.
    test.relay.transport.messagesAfter = async () => ({
      messages: [] as WireMessage[],
      cursor: 2,
      status: 'open',
      status_as_of: 9,
    });
    test.model.setTabHidden(false);
    await settle();
    expect(test.model.phase.value).toBe('escalated');
    stream.deliver({ type: 'status', data: { status: 'resolved', status_as_of: 11 } });
    expect(test.model.phase.value).toBe('resolved');
  });

  it('resumes after a reload: reads the history without announcing it, then streams after it', async () => {
    const storage = new Map<string, string>();
    const memory = {
      getItem: (key: string) => storage.get(key) ?? null,
      setItem: (key: string, value: string) => void storage.set(key, value),
      removeItem: (key: string) => void storage.delete(key),
    } as Storage;
    const first = createTestModel({ stream: true, storage: memory });
    first.model.send('hello');
    await settle();
    first.relay.reply('handle-1', 'history');
    first.model.dispose();
    const second = createTestModel({ storage: memory, relay: first.relay });
    second.model.setTabHidden(true);
    second.model.resume();
    await settle();
    expect(texts(second)).toEqual(['visitor:hello', 'bot:history']);
    expect(second.alerts).toEqual([]);
    expect(second.unread).toEqual([]);
    expect(first.relay.openStreams().map((stream) => stream.after)).toEqual([2]);
  });
});

/** The follower alone, as the chat model builds it: a fake relay, a manual clock, and what it hears recorded. */
async function createTestFollower(options: { stream?: boolean } = {}) {
  const relay = createFakeRelay(options);
  const clock = createManualClock();
  const { conversation } = await relay.transport.createConversation('demo-client', 'create-1');
  const heard: string[] = [];
  const follower = createFollower({
    transport: relay.transport,
    held: () => conversation,
    pollContext: () => ({ msSinceVisitorSent: null, panelOpen: true, tabHidden: false, awaitingReply: false }),
    onMessages: (messages, announce) =>
      heard.push(...messages.map((message) => `${message.text}${announce ? '' : ' (history)'}`)),
    onStatus: (status, statusAsOf) => heard.push(`${status} as of ${statusAsOf}`),
    endsConversation: (error) => {
      const ends = error instanceof TransportError && error.code === 'session_expired';
      if (ends) follower.stopFollowing();
      return ends;
    },
    random: () => 0.5,
    setTimer: clock.setTimer,
    clearTimer: clock.clearTimer,
  });
  relay.calls.length = 0;
  return { follower, relay, clock, heard, handle: conversation };
}

describe('the follower on its own', () => {
  it('follows by the stream, hears what it carries, and falls back to reading after the silence limit', async () => {
    const test = await createTestFollower({ stream: true });
    test.follower.follow();
    const [stream] = test.relay.openStreams();
    stream!.deliver({ type: 'message', data: test.relay.reply(test.handle, 'by the stream') });
    stream!.deliver({ type: 'status', data: { status: 'escalated', status_as_of: 3 } });
    expect(test.heard).toEqual(['by the stream', 'escalated as of 3']);
    await test.clock.advance(STREAM_SILENCE_LIMIT_MS);
    expect(test.relay.openStreams()).toEqual([]);
    expect(test.relay.calls).toEqual(['stream 0', 'poll 1']);
  });

  it('without a stream, reads history unannounced, then polls at the cadence its context gives', async () => {
    const test = await createTestFollower();
    test.relay.reply(test.handle, 'earlier');
    test.follower.follow(true);
    await settle();
    expect(test.heard).toEqual(['earlier (history)', 'open as of 1']);
    expect(test.clock.pending()).toEqual([POLL_IDLE_MS]);
  });

  it('a refusal ends following; stopFollowing() and shutDown() leave no stream and no timer', async () => {
    const test = await createTestFollower({ stream: true });
    test.follower.follow();
    test.relay.openStreams()[0]!.deliver({ type: 'error', data: new TransportError('session_expired') });
    expect(test.relay.openStreams()).toEqual([]);
    expect(test.clock.pending()).toEqual([]);
    const again = await createTestFollower({ stream: true });
    again.follower.follow();
    again.follower.shutDown();
    again.follower.follow();
    expect(again.relay.openStreams()).toEqual([]);
    expect(again.clock.pending()).toEqual([]);
  });
});
