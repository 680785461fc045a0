// The live hub's bounds on one stream, with a sink that records what the relay would put on the connection and takes
// nothing until told to: the catch-up waits for the client before each next message, a stream past the cap on unsent
// bytes is cut, and a stream counts toward the limits until its connection is gone, not merely until it ends.
import { describe, expect, it } from 'vitest';
import type { ReadPolicy } from '../../../src/relay/conversations/read-policy.ts';
import type { Message } from '../../../src/relay/upstream/index.ts';
import { createLiveHub } from '../../../src/relay/live/live-hub.ts';
import { createReadScheduler } from '../../../src/relay/live/read-scheduler.ts';
import type { StreamSink } from '../../../src/relay/live/stream-sink.ts';

const HIGH_WATER = 16 * 1024;
const CAP = 64 * 1024;
const TEXT = '\u0001'.repeat(2000);

/** A connection whose client reads only when `take()` is called. */
function stalledSink() {
  let unsent = 0;
  let closed = false;
  const drainWaiters: (() => void)[] = [];
  const closeListeners: (() => void)[] = [];
  const state = { written: 0, ended: false, destroyed: false };
  const close = () => {
    if (closed) return;
    closed = true;
    drainWaiters.splice(0).forEach((wake) => {
      wake();
    });
    closeListeners.splice(0).forEach((listener) => {
      listener();
    });
  };
  const sink: StreamSink = {
    write(text) {
      if (closed) return false;
      const bytes = typeof text === 'string' ? Buffer.byteLength(text) : text.byteLength;
      unsent += bytes;
      state.written += bytes;
      return unsent < HIGH_WATER;
    },
    get unsent() {
      return unsent;
    },
    drained: () =>
      closed || unsent < HIGH_WATER ? Promise.resolve() : new Promise<void>((resolve) => drainWaiters.push(resolve)),
    end: () => {
      state.ended = true;
    },
    destroy: () => {
      state.destroyed = true;
      close();
    },
    onClose: (listener) => void (closed ? listener() : closeListeners.push(listener)),
  };
  return {
    sink,
    state,
    get unsent() {
      return unsent;
    },
    take() {
      unsent = 0;
      drainWaiters.splice(0).forEach((wake) => {
        wake();
      });
    },
    /** The client goes away (or the relay's cut-off timer fires). */
    close,
  };
}

const message = (sequence: number): Message => ({
  id: `m${sequence}`,
  conversation: 'c1',
  sequence,
  sender: 'bot',
  author_name: 'Aimee',
  text: TEXT,
  created_at: new Date(0).toISOString(),
});

/** A conversation of `total()` messages, read a page of 100 at a time, always open. */
function policyOver(total: () => number): ReadPolicy {
  return {
    admit: async () => null,
    admitWrite: async () => null,
    expired: () => false,
    read: async (_subject, cursor) => {
      const messages = Array.from({ length: Math.max(0, Math.min(100, total() - cursor)) }, (_, index) =>
        message(cursor + index + 1),
      );
      return {
        refused: null,
        page: { messages, hasMore: cursor + messages.length < total() },
        conversation: { status: 'open', updatedAt: 0, newestSequence: total() },
      };
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
const subject = { conversationId: 'c1', expiresAt: Number.MAX_SAFE_INTEGER };

describe('the bounds of one live stream', () => {
  it('writes the catch-up only as fast as the client takes it', async () => {
    const hub = createLiveHub({
      policy: policyOver(() => 1500),
      scheduler: createReadScheduler(4),
      lifetimeMs: 60_000,
      maxStreams: 10,
      maxStreamsPerConversation: 5,
      maxUnsentBytes: CAP,
    });
    const client = stalledSink();
    void hub.open(subject, 0, client.sink);
    await settle();
    // The stream-open comment and messages up to the high-water mark, then it waits: not the 18 MB history.
    expect(client.unsent).toBeGreaterThanOrEqual(HIGH_WATER);
    expect(client.unsent).toBeLessThan(HIGH_WATER + 13_000);
    const firstWritten = client.state.written;
    client.take();
    await settle();
    expect(client.state.written).toBeGreaterThan(firstWritten);
    expect(client.state.written - firstWritten).toBeLessThan(HIGH_WATER + 13_000);
    client.close();
  });

  it('cuts a caught-up stream whose client leaves more than the cap unsent', async () => {
    let total = 1;
    const hub = createLiveHub({
      policy: policyOver(() => total),
      scheduler: createReadScheduler(4),
      lifetimeMs: 60_000,
      maxStreams: 10,
      maxStreamsPerConversation: 1,
      maxUnsentBytes: CAP,
    });
    const client = stalledSink();
    void hub.open(subject, 0, client.sink);
    await settle();
    client.take();
    await settle();
    // Replies arrive faster than this client reads: the watch writes them (a live stream is not paged)...
    const before = client.state.written;
    total = 30;
    hub.wake('c1');
    await settle();
    // ...until what waits unsent passes the cap: then the connection is cut, not grown.
    expect(client.state.destroyed).toBe(true);
    expect(client.state.written - before).toBeLessThan(CAP + 13_000);
  });

  it('an ended stream counts toward the limits until its connection is gone', async () => {
    let time = 0;
    const hub = createLiveHub({
      policy: policyOver(() => 1),
      scheduler: createReadScheduler(4),
      lifetimeMs: 10_000,
      maxStreams: 10,
      maxStreamsPerConversation: 1,
      maxUnsentBytes: CAP,
      now: () => time,
      random: () => 0.5,
    });
    const client = stalledSink();
    void hub.open(subject, 0, client.sink);
    await settle();
    expect(hub.refusal('c1')).toBe('too_many_for_conversation');
    time = 20_000;
    hub.closeAll('shutdown');
    expect(client.state.ended).toBe(true);
    // Ended, its last frame unread: still one stream on this conversation.
    expect(hub.streams).toBe(1);
    expect(hub.refusal('c1')).toBe('too_many_for_conversation');
    client.close();
    expect(hub.streams).toBe(0);
    expect(hub.refusal('c1')).toBeNull();
  });
});
