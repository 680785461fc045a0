// A wake that comes while a new stream is still reading its catch-up (the service's event for a reply stored just after
// that read started) must not be lost: no stream of the watch had caught up to be served then, and while the service's
// events arrive the watch's next read of its own is the safety net's (SAFETY_NET_MS). The stream must get the reply at once.
import { describe, expect, it } from 'vitest';
import type { PolicedRead, ReadPolicy } from '../../../src/relay/conversations/read-policy.ts';
import type { Message } from '../../../src/relay/upstream/index.ts';
import { createLiveHub } from '../../../src/relay/live/live-hub.ts';
import { createReadScheduler } from '../../../src/relay/live/read-scheduler.ts';
import { recordingSink } from '../../support/recording-sink.ts';

const message = (sequence: number): Message => ({
  id: `m${sequence}`,
  conversation: 'c1',
  sequence,
  sender: sequence === 1 ? 'visitor' : 'bot',
  author_name: 'Aimee',
  text: `text ${sequence}`,
  created_at: new Date(0).toISOString(),
});

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
const subject = { conversationId: 'c1', expiresAt: Number.MAX_SAFE_INTEGER };

/**
 * A conversation of `stored` messages, always open; the read numbered `held` (1 = the first) answers only when let go,
 * with what was stored when it started.
 */
function heldPolicy(held: number) {
  const state = { stored: 1, reads: 0, letGo: () => {} };
  const policy: ReadPolicy = {
    admit: async () => null,
    admitWrite: async () => null,
    expired: () => false,
    read: async (_subject, cursor) => {
      state.reads += 1;
      const total = state.stored;
      if (state.reads === held) await new Promise<void>((resolve) => (state.letGo = resolve));
      const messages = Array.from({ length: Math.max(0, total - cursor) }, (_, index) => message(cursor + index + 1));
      return {
        refused: null,
        page: { messages, hasMore: false },
        conversation: { status: 'open', updatedAt: 0, newestSequence: total },
      } satisfies PolicedRead;
    },
  };
  return { policy, state };
}

const hubOver = (policy: ReadPolicy) =>
  createLiveHub({
    policy,
    scheduler: createReadScheduler(4),
    lifetimeMs: 600_000,
    maxStreams: 10,
    maxStreamsPerConversation: 5,
    maxUnsentBytes: 1 << 20,
    random: () => 0.5,
  });

const sequences = (frames: { text: string }[]) =>
  frames
    .filter((frame) => frame.text.includes('event: message\n'))
    .map((frame) => /"sequence":(\d+)/.exec(frame.text)?.[1]);

describe('a wake during a stream’s catch-up', () => {
  it('is read as soon as the catch-up ends, not at the safety net', async () => {
    const { policy, state } = heldPolicy(1);
    const hub = hubOver(policy);
    const client = recordingSink();
    const opened = hub.open(subject, 0, client.sink);
    await settle();
    expect(state.reads).toBe(1);
    // The bot's reply is stored after the catch-up's read began, and the service says so.
    state.stored = 2;
    hub.serviceEvent('c1');
    await settle();
    state.letGo();
    await opened;
    await settle();
    expect(sequences(client.frames)).toEqual(['1', '2']);
  });

  it('reaches a second tab still catching up while the first tab’s stream is served', async () => {
    // Read 1: the first tab's catch-up; read 2, held: the second tab's.
    const { policy, state } = heldPolicy(2);
    const hub = hubOver(policy);
    const first = recordingSink();
    await hub.open(subject, 0, first.sink);
    const second = recordingSink();
    const opened = hub.open(subject, 0, second.sink);
    await settle();
    expect(state.reads).toBe(2);
    state.stored = 2;
    hub.serviceEvent('c1');
    await settle();
    expect(sequences(first.frames)).toEqual(['1', '2']);
    state.letGo();
    await opened;
    await settle();
    expect(sequences(second.frames)).toEqual(['1', '2']);
  });
});
