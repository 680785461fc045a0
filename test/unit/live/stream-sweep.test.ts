// The live hub's pass over its quiet streams, on a fake clock: each quiet stream gets a heartbeat at least every
// STREAM_HEARTBEAT_MS, a stream written to is next due a heartbeat from that write, a stream's lifetime ends it with a
// reconnect hint, and a pass looks only at the streams due then (many idle streams must not cost every stream's
// check every second).
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ReadPolicy } from '../../../src/relay/conversations/read-policy.ts';
import type { Message } from '../../../src/relay/upstream/index.ts';
import { createLiveHub } from '../../../src/relay/live/live-hub.ts';
import { createReadScheduler } from '../../../src/relay/live/read-scheduler.ts';
import { recordingSink } from '../../support/recording-sink.ts';
import { STREAM_HEARTBEAT_MS } from '../../../src/shared/wire.ts';

afterEach(() => {
  vi.useRealTimers();
});

/** A client that takes everything at once; it records each frame with the fake clock's time. */

const message = (sequence: number): Message => ({
  id: `m${sequence}`,
  conversation: 'c1',
  sequence,
  sender: 'bot',
  author_name: 'Aimee',
  text: 'Hello',
  created_at: new Date(0).toISOString(),
});

/** An open conversation, with the messages pushed to `messages`; counts how often a handle is checked for expiry. */
function quietPolicy() {
  const counts = { expiryChecks: 0 };
  const messages: Message[] = [];
  const policy: ReadPolicy = {
    admit: async () => null,
    admitWrite: async () => null,
    expired: (subject, at = Date.now()) => {
      counts.expiryChecks += 1;
      return at >= subject.expiresAt;
    },
    read: async (_subject, cursor) => ({
      refused: null,
      page: { messages: messages.filter((each) => each.sequence > cursor), hasMore: false },
      conversation: { status: 'open', updatedAt: 0, newestSequence: messages.length },
    }),
  };
  return { policy, counts, messages };
}

function hubOver(policy: ReadPolicy, lifetimeMs = 3_600_000) {
  return createLiveHub({
    policy,
    scheduler: createReadScheduler(4),
    lifetimeMs,
    maxStreams: 10_000,
    maxStreamsPerConversation: 5,
    maxUnsentBytes: 64 * 1024,
    now: () => Date.now(),
    random: () => 0.5,
  });
}

const subject = (conversationId: string) => ({ conversationId, expiresAt: Number.MAX_SAFE_INTEGER });

async function advanceSeconds(seconds: number) {
  for (let second = 0; second < seconds; second++) await vi.advanceTimersByTimeAsync(1000);
}

describe('the sweep of quiet streams', () => {
  it('writes a heartbeat to a quiet stream at least every STREAM_HEARTBEAT_MS, and never twice as often', async () => {
    vi.useFakeTimers();
    const { policy } = quietPolicy();
    const hub = hubOver(policy);
    const client = recordingSink();
    void hub.open(subject('c1'), 0, client.sink);
    await advanceSeconds(120);
    const writes = client.frames.map((frame) => frame.at);
    const gaps = writes.slice(1).map((at, index) => at - writes[index]!);
    expect(client.heartbeats().length).toBeGreaterThanOrEqual(120_000 / STREAM_HEARTBEAT_MS - 1);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(STREAM_HEARTBEAT_MS + 1000);
    expect(Math.min(...gaps.slice(1))).toBeGreaterThanOrEqual(STREAM_HEARTBEAT_MS / 2);
  });

  it("counts the next heartbeat from the stream's last write, a message included", async () => {
    vi.useFakeTimers();
    const { policy, messages } = quietPolicy();
    const hub = hubOver(policy);
    const client = recordingSink();
    void hub.open(subject('c1'), 0, client.sink);
    await advanceSeconds(7);
    messages.push(message(1));
    hub.wake('c1');
    await advanceSeconds(1);
    const delivered = client.frames.find((frame) => frame.text.includes('event: message'))!;
    await advanceSeconds(30);
    const heartbeats = client.heartbeats().map((frame) => frame.at);
    // None at the open's heartbeat time (a message was written since), the next one a heartbeat after the message.
    expect(heartbeats[0]! - delivered.at).toBeGreaterThanOrEqual(STREAM_HEARTBEAT_MS - 1000);
    expect(heartbeats[0]! - delivered.at).toBeLessThanOrEqual(STREAM_HEARTBEAT_MS + 1000);
  });

  it('ends a stream whose lifetime is over with a reconnect hint', async () => {
    vi.useFakeTimers();
    const { policy } = quietPolicy();
    const hub = hubOver(policy, 40_000);
    const client = recordingSink();
    void hub.open(subject('c1'), 0, client.sink);
    await advanceSeconds(45);
    expect(client.frames.at(-1)!.text).toContain('event: reconnect');
    const heartbeatsAtEnd = client.heartbeats().length;
    await advanceSeconds(30);
    expect(client.heartbeats().length).toBe(heartbeatsAtEnd);
  });

  it('looks at each quiet stream about once a heartbeat, not every second', async () => {
    vi.useFakeTimers();
    const { policy, counts } = quietPolicy();
    const hub = hubOver(policy);
    const clients = Array.from({ length: 200 }, () => recordingSink());
    clients.forEach((client, index) => void hub.open(subject(`c${index}`), 0, client.sink));
    await advanceSeconds(5);
    const before = counts.expiryChecks;
    await advanceSeconds(60);
    const perStreamPerMinute = (counts.expiryChecks - before) / clients.length;
    // The watches' own reads check each stream too (every 15 s for a conversation without the service's events):
    // with the heartbeats' looks, about eight a minute. A pass over every stream every second would be sixty.
    expect(perStreamPerMinute).toBeLessThanOrEqual(10);
    expect(clients.every((client) => client.heartbeats().length >= 3)).toBe(true);
  });
});
