import { describe, expect, it } from 'vitest';
import {
  parseApiErrorCode,
  parseCreatedConversation,
  parseEscalated,
  parseMessagesAfter,
  parseSentMessage,
  parseStreamReconnect,
  parseStreamStatus,
  parseWireMessage,
} from '../../../src/shared/wire-parse.ts';

const message = {
  id: 'm1',
  sequence: 1,
  sender: 'bot',
  author_name: 'Aimee',
  text: 'Hello',
  created_at: '2026-11-22T10:00:00Z',
};

describe('wire parsers', () => {
  it('accept exactly the shapes, and drop extra fields', () => {
    expect(parseWireMessage({ ...message, html: '<b>x</b>' })).toEqual(message);
    expect(parseSentMessage({ message })).toEqual(message);
    expect(
      parseMessagesAfter({ messages: [message], cursor: 1, status: 'open', status_as_of: 1_763_892_000_000 }),
    ).toEqual({
      messages: [message],
      cursor: 1,
      status: 'open',
      status_as_of: 1_763_892_000_000,
    });
    expect(parseCreatedConversation({ conversation: 'h', expires_at: 'x' })).toEqual({
      conversation: 'h',
      expires_at: 'x',
    });
    expect(parseEscalated({ status: 'escalated', status_as_of: 5 })).toEqual({ status: 'escalated', status_as_of: 5 });
    expect(parseApiErrorCode({ error: { code: 'rate_limited', message: 'x' } })).toBe('rate_limited');
    expect(parseStreamStatus({ status: 'resolved', status_as_of: 9, extra: 1 })).toEqual({
      status: 'resolved',
      status_as_of: 9,
    });
    expect(parseStreamReconnect({ reason: 'shutdown', extra: 1 })).toEqual({ reason: 'shutdown' });
    expect(parseStreamReconnect({ reason: 'lifetime' })).toEqual({ reason: 'lifetime' });
  });

  it.each([
    ['a message from an unknown sender', () => parseWireMessage({ ...message, sender: 'system' })],
    ['a message whose text is not a string', () => parseWireMessage({ ...message, text: { html: 'x' } })],
    ['a fractional sequence', () => parseWireMessage({ ...message, sequence: 1.5 })],
    [
      'a list with one bad message',
      () =>
        parseMessagesAfter({ messages: [message, { ...message, id: 2 }], cursor: 1, status: 'open', status_as_of: 0 }),
    ],
    ['an unknown status', () => parseMessagesAfter({ messages: [], cursor: 0, status: 'closed', status_as_of: 0 })],
    ['a negative cursor', () => parseMessagesAfter({ messages: [], cursor: -1, status: 'open', status_as_of: 0 })],
    ['messages without status_as_of', () => parseMessagesAfter({ messages: [], cursor: 0, status: 'open' })],
    [
      'a status_as_of that is a date string',
      () => parseMessagesAfter({ messages: [], cursor: 0, status: 'open', status_as_of: '2026-11-23T10:00:00Z' }),
    ],
    ['an escalation without status_as_of', () => parseEscalated({ status: 'escalated' })],
    ['an empty handle', () => parseCreatedConversation({ conversation: '', expires_at: 'x' })],
    ['an array for an object', () => parseEscalated([{ status: 'open' }])],
    ['an unknown error code', () => parseApiErrorCode({ error: { code: 'teapot' } })],
    ['null', () => parseSentMessage(null)],
    ['a stream status without status_as_of', () => parseStreamStatus({ status: 'open' })],
    ['a reconnect for an unknown reason', () => parseStreamReconnect({ reason: 'bored' })],
    ['a reconnect without a body', () => parseStreamReconnect(null)],
  ])('refuse %s', (_why, parse) => {
    expect(parse()).toBeNull();
  });
});
