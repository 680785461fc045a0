// The panel's merge of messages from the relay: each shown once and in order whatever the two sources (a read, the live
// stream) overlap, the visitor's pending messages kept where they are, and nothing copied when nothing is new.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ChatMessage, fromWire, mergeIncoming } from '../../../../src/frame/model/message-list.ts';
import type { WireMessage } from '../../../../src/shared/wire.ts';

const wire = (sequence: number): WireMessage => ({
  id: `msg_${sequence}`,
  sequence,
  sender: sequence % 2 === 0 ? 'bot' : 'visitor',
  author_name: sequence % 2 === 0 ? 'Aimee' : 'Visitor',
  text: `message ${sequence}`,
  created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, sequence)).toISOString(),
});
const pending = (key: string): ChatMessage => ({
  key,
  id: null,
  sequence: null,
  sender: 'visitor',
  authorName: 'Visitor',
  text: 'on its way',
  createdAt: '2026-01-01T00:00:00.000Z',
  delivery: 'sending',
});

describe('mergeIncoming', () => {
  it('answers the same list, and nothing added, when every incoming message is shown already', () => {
    const { list } = mergeIncoming([], [1, 2, 3].map(wire));
    const again = mergeIncoming(list, [2, 3].map(wire));
    expect(again.list).toBe(list);
    expect(again.added).toEqual([]);
  });

  it('appends a message past the newest, after the pending ones; puts an older one before the first newer', () => {
    const shown = [fromWire(wire(1)), fromWire(wire(4)), pending('p-1')];
    expect(mergeIncoming(shown, [wire(5)]).list.map((m) => m.key)).toEqual(['m-msg_1', 'm-msg_4', 'p-1', 'm-msg_5']);
    expect(mergeIncoming(shown, [wire(2), wire(3)]).list.map((m) => m.key)).toEqual([
      'm-msg_1',
      'm-msg_2',
      'm-msg_3',
      'm-msg_4',
      'p-1',
    ]);
  });

  it('shows each message once and in order, whatever batches, overlaps and repeats bring them', () => {
    const batch = fc.array(fc.integer({ min: 1, max: 30 }), { maxLength: 8 });
    fc.assert(
      fc.property(fc.array(batch, { maxLength: 6 }), (batches) => {
        let list: ChatMessage[] = [];
        const seen = new Set<number>();
        for (const sequences of batches) {
          const { list: next, added } = mergeIncoming(list, sequences.map(wire));
          const fresh = [...new Set(sequences)].filter((sequence) => !seen.has(sequence));
          expect(added.map((m) => m.sequence)).toEqual(fresh);
          for (const sequence of fresh) seen.add(sequence);
          if (fresh.length === 0) expect(next).toBe(list);
          list = next;
        }
        expect(list.map((m) => m.sequence)).toEqual([...seen].sort((a, b) => a - b));
      }),
      { numRuns: 2000 },
    );
  });
});
