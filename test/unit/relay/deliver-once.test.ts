// At the level of one send: every attempt is on record before it goes upstream, a send is cut at its window, and a
// retry that finds an attempt of unknown outcome reads the conversation back: the message found there settles it at
// once; not found, the retry is told "still sending" until that attempt can no longer land (its start plus the settle
// window), and only then sends.
import { describe, expect, it, vi } from 'vitest';
import {
  AttemptStillSettling,
  createDeliverOnce,
  LANDING_ALLOWANCE_MS,
  SendOutcomeUnknown,
} from '../../../src/relay/conversations/deliver-once.ts';
import { digest } from '../../../src/relay/conversations/digest.ts';
import { createUnknownOutcomeStore } from '../../../src/relay/conversations/unknown-outcomes.ts';
import { UpstreamError, type Message } from '../../../src/relay/upstream/index.ts';

const WINDOW_MS = 10_000;
const SETTLE_MS = 15_000;

/** An upstream conversation in memory, whose sends may hang (an instance that died holding one). */
function fakeUpstream(clock: { now: number }) {
  const stored: Message[] = [];
  const store = (text: string): Message => {
    const message: Message = {
      id: `m${stored.length + 1}`,
      conversation: 'c',
      sequence: stored.length + 1,
      sender: 'visitor',
      author_name: '',
      text,
      created_at: new Date(clock.now).toISOString(),
    };
    stored.push(message);
    return message;
  };
  return {
    stored,
    store,
    hangSends: false,
    onSend: (() => {}) as () => void,
    signals: [] as AbortSignal[],
    async sendMessage(_id: string, text: string, options: { signal?: AbortSignal } = {}) {
      this.onSend();
      if (options.signal) this.signals.push(options.signal);
      if (this.hangSends) {
        return new Promise<Message>((_resolve, reject) =>
          options.signal?.addEventListener('abort', () => reject(options.signal!.reason)),
        );
      }
      return store(text);
    },
    async listMessagesAfter(_id: string, after: number) {
      return { messages: stored.filter((message) => message.sequence > after), hasMore: false };
    },
  };
}

function setUp() {
  const clock = { now: Date.UTC(2026, 10, 24, 9, 0, 0) };
  const upstream = fakeUpstream(clock);
  const outcomes = createUnknownOutcomeStore({ now: () => clock.now });
  const deliverOnce = createDeliverOnce({
    upstream,
    outcomes,
    sendWindowMs: WINDOW_MS,
    settleWindowMs: SETTLE_MS,
    now: () => clock.now,
  });
  return { clock, upstream, outcomes, deliverOnce };
}

describe('deliver once', () => {
  it('records the attempt before the send leaves, and forgets it once upstream has answered', async () => {
    const { upstream, outcomes, deliverOnce } = setUp();
    let recordedAtSend: unknown = 'not asked';
    upstream.onSend = () => void outcomes.get('c', 'key-1').then((record) => (recordedAtSend = record));
    await deliverOnce('c', 'key-1', 'my tooth hurts');
    await Promise.resolve();
    expect(recordedAtSend).toMatchObject({ bodyHash: expect.any(String), settlesBy: expect.any(Number) });
    expect(await outcomes.get('c', 'key-1')).toBeNull();
  });

  it('a retry after its instance died mid-send answers what that attempt stored as soon as it reads it there', async () => {
    const { clock, upstream, outcomes, deliverOnce } = setUp();
    // The dead instance's attempt: on record, and stored upstream, but never answered.
    const started = clock.now;
    await outcomes.remember('c', 'key-2', {
      bodyHash: digest('can I come at 3?'),
      startedAt: started,
      settlesBy: started + WINDOW_MS + LANDING_ALLOWANCE_MS,
    });
    const landed = upstream.store('can I come at 3?');
    clock.now += 2_000;
    const answered = await deliverOnce('c', 'key-2', 'can I come at 3?');
    expect(answered.id).toBe(landed.id);
    expect(upstream.stored).toHaveLength(1);
    // Settled: the record is gone, and the message is another key's answer from now on.
    expect(await outcomes.get('c', 'key-2')).toBeNull();
    expect(await outcomes.isClaimed('c', landed.id)).toBe(true);
  });

  it('a retry that reads nothing back is told "still sending" until the attempt can no longer land, even when the read-back fails', async () => {
    const { clock, upstream, outcomes, deliverOnce } = setUp();
    const started = clock.now;
    await outcomes.remember('c', 'key-8', {
      bodyHash: digest('still on its way'),
      startedAt: started,
      settlesBy: started + WINDOW_MS + LANDING_ALLOWANCE_MS,
    });
    clock.now += 2_000;
    const early = await deliverOnce('c', 'key-8', 'still on its way').catch((error: unknown) => error);
    expect(early).toBeInstanceOf(AttemptStillSettling);
    expect((early as AttemptStillSettling).retryAfterMs).toBe(WINDOW_MS + LANDING_ALLOWANCE_MS - 2_000);
    const listing = upstream.listMessagesAfter;
    upstream.listMessagesAfter = async () => {
      throw new UpstreamError('upstream_unavailable', { path: '/x' });
    };
    clock.now += 1_000;
    const unread = await deliverOnce('c', 'key-8', 'still on its way').catch((error: unknown) => error);
    expect(unread).toBeInstanceOf(AttemptStillSettling);
    expect((unread as AttemptStillSettling).retryAfterMs).toBe(WINDOW_MS + LANDING_ALLOWANCE_MS - 3_000);
    upstream.listMessagesAfter = listing;
    expect(upstream.stored).toHaveLength(0);
    expect(await outcomes.get('c', 'key-8')).not.toBeNull();
  });

  it('a retry after a dead attempt that stored nothing sends, once', async () => {
    const { clock, upstream, outcomes, deliverOnce } = setUp();
    await outcomes.remember('c', 'key-3', {
      bodyHash: digest('hello'),
      startedAt: clock.now,
      settlesBy: clock.now + WINDOW_MS,
    });
    clock.now += WINDOW_MS;
    await deliverOnce('c', 'key-3', 'hello');
    expect(upstream.stored.map((message) => message.text)).toEqual(['hello']);
  });

  it('a send still running at the end of its window is aborted, and stays on record for the retry', async () => {
    vi.useFakeTimers();
    try {
      const { upstream, outcomes, deliverOnce } = setUp();
      upstream.hangSends = true;
      const failure = deliverOnce('c', 'key-4', 'hello').catch((error: unknown) => error);
      await vi.advanceTimersByTimeAsync(WINDOW_MS - 1);
      expect(upstream.signals[0]!.aborted).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      // The answer asks the panel to come back when its retry can decide (the fake clock here stays at the start).
      expect(await failure).toBeInstanceOf(SendOutcomeUnknown);
      expect(await failure).toMatchObject({ cause: { code: 'upstream_timeout' }, retryAfterMs: SETTLE_MS });
      // Cut at the window's end, the service may still store it: the record keeps the whole settle window.
      expect(await outcomes.get('c', 'key-4')).toMatchObject({
        bodyHash: digest('hello'),
        settlesBy: Date.UTC(2026, 10, 24, 9, 0, 0) + SETTLE_MS,
      });
    } finally {
      vi.useRealTimers();
    }
  });

  it('a 4xx says the message was not stored: the record goes, and the retry sends without waiting', async () => {
    const { upstream, outcomes, deliverOnce } = setUp();
    upstream.onSend = () => {
      throw new UpstreamError('upstream_rejected', { path: '/x' });
    };
    await expect(deliverOnce('c', 'key-5', 'hello')).rejects.toBeInstanceOf(UpstreamError);
    expect(await outcomes.get('c', 'key-5')).toBeNull();
    upstream.onSend = () => {};
    await deliverOnce('c', 'key-5', 'hello');
    expect(upstream.stored).toHaveLength(1);
  });

  it('a timed-out send that the service stores after the relay gave up: "still sending" until the retry finds it, never sent again', async () => {
    const { clock, upstream, deliverOnce } = setUp();
    const started = clock.now;
    upstream.onSend = () => {
      clock.now += 5_000;
      throw new UpstreamError('upstream_timeout', { path: '/x' });
    };
    await expect(deliverOnce('c', 'key-6', 'late')).rejects.toMatchObject({
      cause: { code: 'upstream_timeout' },
      retryAfterMs: SETTLE_MS - 5_000,
    });
    upstream.onSend = () => {};
    // The service stores it 7 s after it arrived; the panel's retries come before and after.
    clock.now = started + 6_000;
    await expect(deliverOnce('c', 'key-6', 'late')).rejects.toBeInstanceOf(AttemptStillSettling);
    clock.now = started + 7_000;
    const landed = upstream.store('late');
    clock.now = started + 8_000;
    expect((await deliverOnce('c', 'key-6', 'late')).id).toBe(landed.id);
    expect(upstream.stored).toHaveLength(1);
  });

  it("a settle window shorter than the send window is raised to it: the relay's own call may run that long", async () => {
    const clock = { now: Date.UTC(2026, 10, 24, 9, 0, 0) };
    const outcomes = createUnknownOutcomeStore({ now: () => clock.now });
    const upstream = fakeUpstream(clock);
    upstream.onSend = () => {
      throw new UpstreamError('upstream_unavailable', { path: '/x' });
    };
    const deliverOnce = createDeliverOnce({
      upstream,
      outcomes,
      sendWindowMs: WINDOW_MS,
      settleWindowMs: 0,
      now: () => clock.now,
    });
    await expect(deliverOnce('c', 'key-7', 'hi')).rejects.toBeInstanceOf(SendOutcomeUnknown);
    expect((await outcomes.get('c', 'key-7'))?.settlesBy).toBe(clock.now + WINDOW_MS + LANDING_ALLOWANCE_MS);
  });
});
