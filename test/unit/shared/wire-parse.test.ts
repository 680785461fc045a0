import { describe, expect, it } from 'vitest';
import {
  parseApiErrorCode,
  parseCreatedConversation,
  parseEscalated,
  parseMessagesAfter,
  parseSentMessage,
  parseWireMessage,
} from '../../../src/shared/wire-parse.ts';

const message = { id: 'm1', sequence: 1, sender: 'bot', author_name: 'Aimee', text: 'Hello', created_at: '2026-11-22T10:00:00Z' };

describe('wire parsers', () => {
  it('accept exactly the shapes, and drop extra fields', () => {
    expect(parseWireMessage({ ...message, html: '<b>x</b>' })).toEqual(message);
    expect(parseSentMessage({ message })).toEqual(message);
    expect(parseMessagesAfter({ messages: [message], cursor: 1, status: 'open' })).toEqual({ messages: [message], cursor: 1, status: 'open' });
    expect(parseCreatedConversation({ conversation: 'h', expires_at: 'x' })).toEqual({ conversation: 'h', expires_at: 'x' });
    expect(parseEscalated({ status: 'escalated' })).toEqual({ status: 'escalated' });
    expect(parseApiErrorCode({ error: { code: 'rate_limited', message: 'x' } })).toBe('rate_limited');
  });

  it.each([
    ['a message from an unknown sender', () => parseWireMessage({ ...message, sender: 'system' })],
    ['a message whose text is not a string', () => parseWireMessage({ ...message, text: { html: 'x' } })],
    ['a fractional sequence', () => parseWireMessage({ ...message, sequence: 1.5 })],
    ['a list with one bad message', () => parseMessagesAfter({ messages: [message, { ...message, id: 2 }], cursor: 1, status: 'open' })],
    ['an unknown status', () => parseMessagesAfter({ messages: [], cursor: 0, status: 'closed' })],
    ['a negative cursor', () => parseMessagesAfter({ messages: [], cursor: -1, status: 'open' })],
    ['an empty handle', () => parseCreatedConversation({ conversation: '', expires_at: 'x' })],
    ['an array for an object', () => parseEscalated([{ status: 'open' }])],
    ['an unknown error code', () => parseApiErrorCode({ error: { code: 'teapot' } })],
    ['null', () => parseSentMessage(null)],
  ])('refuse %s', (_why, parse) => {
    expect(parse()).toBeNull();
  });
});
