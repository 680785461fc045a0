// How the follower follows is one value, and each state holds the stream and the timers it started: entering a state
// starts them, leaving it ends them, so no stream outlives its state and no timer of one state fires in another.
// Checked transition by transition with a fake relay and a manual clock, then over random sequences (fast-check).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { STREAM_SILENCE_LIMIT_MS } from '../../../src/shared/wire.ts';
import { createFollower, STREAM_RETRY_MS } from '../../../src/frame/model/follower.ts';
import { POLL_IDLE_MS } from '../../../src/frame/model/poll-cadence.ts';
import { TransportError } from '../../../src/frame/transport.ts';
import { createFakeRelay, createManualClock, settle } from './fakes.ts';

/** A follower as the chat model builds it, on a conversation the fake relay opened, its panel open and idle. */
async function following() {
  const relay = createFakeRelay({ stream: true });
  const clock = createManualClock();
  const { conversation } = await relay.transport.createConversation('demo-client', 'create-1');
  let held: string | null = conversation;
  const follower = createFollower({
    transport: relay.transport,
    held: () => held,
    pollContext: () => ({ msSinceVisitorSent: null, panelOpen: true, tabHidden: false, awaitingReply: false }),
    onMessages: () => {},
    onStatus: () => {},
    endsConversation: (error) => {
      const ends = error instanceof TransportError && error.code === 'session_expired';
      if (ends) {
        held = null;
        follower.stopFollowing();
      }
      return ends;
    },
    random: () => 0.5,
    setTimer: clock.setTimer,
    clearTimer: clock.clearTimer,
  });
  follower.follow();
  const stream = () => {
    const open = relay.openStreams();
    expect(open).toHaveLength(1);
    return open[0]!;
  };
  /** Reads wait until `release()`: what is pending while one is on its way. */
  const holdReads = () => {
    const read = relay.transport.messagesAfter;
    let release = () => {};
    relay.transport.messagesAfter = (...args) =>
      new Promise((resolve) => {
        release = () => resolve(read(...args));
      });
    return () => release();
  };
  return {
    follower,
    relay,
    clock,
    stream,
    holdReads,
    reopen: () => (held = conversation),
  };
}

type Following = Awaited<ReturnType<typeof following>>;

/** Into polling: the stream said nothing for the silence limit, and the read that followed answered. */
async function polling(test: Following) {
  await test.clock.advance(STREAM_SILENCE_LIMIT_MS);
  return test;
}

describe("the follower's states", () => {
  it('streaming: its stream and its silence timer, nothing else', async () => {
    const test = await following();
    test.stream();
    expect(test.clock.pending()).toEqual([STREAM_SILENCE_LIMIT_MS]);
    await test.clock.advance(10_000);
    test.stream().deliver({ type: 'alive' });
    // Bytes restart the silence timer: still the one timer.
    expect(test.clock.pending()).toEqual([STREAM_SILENCE_LIMIT_MS]);
  });

  it("a drop: between two streams, with only the drop's backoff; the stream after it has only its silence timer", async () => {
    const test = await following();
    test.stream().deliver({ type: 'error', data: new TransportError('network') });
    expect(test.relay.openStreams()).toEqual([]);
    const [backoff, ...others] = test.clock.pending();
    expect(others).toEqual([]);
    expect(backoff).toBeLessThan(STREAM_SILENCE_LIMIT_MS);
    await test.clock.advance(backoff!);
    test.stream();
    expect(test.clock.pending()).toEqual([STREAM_SILENCE_LIMIT_MS]);
  });

  it("silence: polling, the stream closed; polling holds its next read and the stream's retry", async () => {
    const test = await polling(await following());
    expect(test.relay.openStreams()).toEqual([]);
    expect(test.clock.pending()).toEqual([POLL_IDLE_MS, STREAM_RETRY_MS]);
  });

  it("polling, then the stream tried again: the read that answers opens it, and polling's timers end with it", async () => {
    const test = await polling(await following());
    await test.clock.advance(STREAM_RETRY_MS - 1);
    expect(test.clock.pending()).toHaveLength(2);
    const release = test.holdReads();
    await test.clock.advance(1);
    expect(test.relay.openStreams()).toEqual([]);
    release();
    await settle();
    test.stream();
    expect(test.clock.pending()).toEqual([STREAM_SILENCE_LIMIT_MS]);
  });

  const states: Array<[string, (test: Following) => Promise<unknown>]> = [
    ['streaming', async () => {}],
    [
      'between two streams, after a drop',
      async (test) => test.stream().deliver({ type: 'error', data: new TransportError('network') }),
    ],
    [
      'between two streams, its read failed and retried later',
      async (test) => {
        test.relay.failures.push(new TransportError('upstream_unavailable'));
        test.follower.restart();
        await settle();
        test.follower.schedulePoll();
      },
    ],
    ['polling', polling],
  ];

  it.each(states)('%s: stopFollowing() ends its stream and its timers', async (_state, enter) => {
    const test = await following();
    await enter(test);
    expect(test.relay.openStreams().length + test.clock.pending().length).toBeGreaterThan(0);
    test.follower.stopFollowing();
    expect(test.relay.openStreams()).toEqual([]);
    expect(test.clock.pending()).toEqual([]);
    // Idle, it reads and listens to nothing, whatever it is asked; following again starts afresh, by the stream.
    const calls = test.relay.calls.length;
    test.follower.catchUp();
    test.follower.expectReply();
    test.follower.restart();
    test.follower.schedulePoll(0);
    await settle();
    expect(test.relay.calls).toHaveLength(calls);
    expect(test.clock.pending()).toEqual([]);
    test.follower.follow();
    expect(test.stream().after).toBe(0);
  });

  it.each(states)('%s: shutDown() ends its stream and its timers, for good', async (_state, enter) => {
    const test = await following();
    await enter(test);
    test.follower.shutDown();
    const calls = test.relay.calls.length;
    test.follower.follow();
    test.follower.follow(true);
    test.follower.catchUp();
    test.follower.expectReply();
    test.follower.restart();
    await test.clock.advance(STREAM_RETRY_MS * 2);
    expect(test.relay.openStreams()).toEqual([]);
    expect(test.clock.pending()).toEqual([]);
    expect(test.relay.calls).toHaveLength(calls);
  });

  it('a read that answers after the follower stopped changes nothing', async () => {
    const test = await following();
    const release = test.holdReads();
    test.follower.restart();
    test.follower.stopFollowing();
    release();
    await settle();
    expect(test.relay.openStreams()).toEqual([]);
    expect(test.clock.pending()).toEqual([]);
  });
});

describe('whatever happens, in any order', () => {
  type Step =
    | { do: 'event'; event: 'alive' | 'message' | 'status' | 'reconnect' | 'drop' | 'not a stream' | 'expired' }
    | { do: 'advance'; ms: number }
    | { do: 'restart' | 'expect a reply' | 'poll' | 'catch up' | 'fail the next read' | 'stop' | 'follow' };
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({
      do: fc.constant('event' as const),
      event: fc.constantFrom('alive', 'message', 'status', 'reconnect', 'drop', 'not a stream', 'expired'),
    }),
    fc.record({ do: fc.constant('advance' as const), ms: fc.constantFrom(0, 999, 5_000, STREAM_SILENCE_LIMIT_MS) }),
    fc.record({
      do: fc.constantFrom('restart', 'expect a reply', 'poll', 'catch up', 'fail the next read', 'stop', 'follow'),
    }),
  );

  async function run(test: Following, next: Step) {
    const open = test.relay.openStreams()[0];
    if (next.do === 'event' && open) {
      const data = { status: 'open' as const, status_as_of: 1 };
      if (next.event === 'alive' || next.event === 'reconnect') open.deliver({ type: next.event });
      if (next.event === 'status') open.deliver({ type: 'status', data });
      if (next.event === 'message') open.deliver({ type: 'message', data: test.relay.reply(open.handle, 'hi') });
      const error = { drop: 'network', 'not a stream': 'bad_response', expired: 'session_expired' } as const;
      if (next.event in error)
        open.deliver({ type: 'error', data: new TransportError(error[next.event as keyof typeof error]) });
    }
    if (next.do === 'advance') await test.clock.advance(next.ms);
    if (next.do === 'restart') test.follower.restart();
    if (next.do === 'expect a reply') test.follower.expectReply();
    if (next.do === 'poll') test.follower.schedulePoll();
    if (next.do === 'catch up') void test.follower.catchUp();
    if (next.do === 'fail the next read') test.relay.failures.push(new TransportError('upstream_unavailable'));
    if (next.do === 'stop') test.follower.stopFollowing();
    if (next.do === 'follow') {
      test.reopen();
      test.follower.follow();
    }
    await settle();
  }

  it('at most one stream, and while it is open no timer but its silence timer', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 30 }), async (steps) => {
        const test = await following();
        for (const next of steps) {
          await run(test, next);
          const open = test.relay.openStreams();
          expect(open.length).toBeLessThanOrEqual(1);
          if (open.length === 1) expect(test.clock.pending()).toHaveLength(1);
          // Between streams or polling: a read to come, and the stream to try again; never more.
          else expect(test.clock.pending().length).toBeLessThanOrEqual(2);
        }
        test.follower.stopFollowing();
        expect(test.relay.openStreams()).toEqual([]);
        expect(test.clock.pending()).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });
});
