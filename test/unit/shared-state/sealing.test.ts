// Every purpose seals under its own key, derived from the relay's secret with the purpose's name: a text sealed for
// one purpose (a kind of idempotency record, a change on the event bus's channel) never opens for another, nor for
// another record's scope or key, nor under another secret, nor once changed.
import { describe, expect, it } from 'vitest';
import { createRecordSealer } from '../../../src/relay/conversations/record-seal.ts';
import { createChangeSealer } from '../../../src/relay/live/change-seal.ts';

const secret = new Uint8Array(32).fill(3);
const otherSecret = new Uint8Array(32).fill(4);

describe('record sealers', () => {
  const sent = createRecordSealer(secret, 'sent-record');
  const sealed = sent.seal('conv-1', 'key-0001', '{"id":"m1"}');

  it('open what they sealed, for the same scope and key only', () => {
    expect(sent.open('conv-1', 'key-0001', sealed)).toBe('{"id":"m1"}');
    expect(sent.open('conv-2', 'key-0001', sealed)).toBeNull();
    expect(sent.open('conv-1', 'key-0002', sealed)).toBeNull();
  });

  it('of another kind or another secret open nothing', () => {
    expect(createRecordSealer(secret, 'created-record').open('conv-1', 'key-0001', sealed)).toBeNull();
    expect(createRecordSealer(otherSecret, 'sent-record').open('conv-1', 'key-0001', sealed)).toBeNull();
  });

  it('refuse a sealed text that was changed', () => {
    const bytes = Buffer.from(sealed, 'base64url');
    bytes[bytes.length - 1]! ^= 1;
    expect(sent.open('conv-1', 'key-0001', bytes.toString('base64url'))).toBeNull();
  });
});

describe('the change sealer', () => {
  const changes = createChangeSealer(secret);

  it('opens the change it sealed, and not one of another secret', () => {
    const sealed = changes.seal({ kind: 'messages', conversationId: 'conv:1' });
    expect(changes.open(sealed)).toEqual({ kind: 'messages', conversationId: 'conv:1' });
    expect(createChangeSealer(otherSecret).open(sealed)).toBeNull();
  });

  it('and the record sealers never open each other’s texts', () => {
    const change = changes.seal({ kind: 'status', conversationId: 'conv:1' });
    // The names the event bus once passed to a record sealer as its scope and "Idempotency-Key".
    for (const kind of ['sent-record', 'created-record'] as const) {
      expect(createRecordSealer(secret, kind).open('events', 'pwc:events', change)).toBeNull();
    }
    const record = createRecordSealer(secret, 'sent-record').seal('events', 'pwc:events', 'status:conv:1');
    expect(changes.open(record)).toBeNull();
  });
});
