// The panel's text/event-stream parser: events split into chunks anywhere (inside a CRLF too), every line ending,
// comments, multi-line data, and the spec's rule that an event without data is no event.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventStreamParser } from '../../../src/frame/event-stream.ts';

type Parsed = Array<[string, string]>;

function parse(chunks: readonly string[]): Parsed {
  const events: Parsed = [];
  const push = eventStreamParser((type, data) => events.push([type, data]));
  for (const chunk of chunks) push(chunk);
  return events;
}

/** The text cut at the given places (sorted, deduplicated, within bounds). */
function cut(text: string, places: readonly number[]): string[] {
  const at = [...new Set(places.map((place) => place % (text.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const place of at) {
    pieces.push(text.slice(from, place));
    from = place;
  }
  pieces.push(text.slice(from));
  return pieces;
}

const RELAY_LIKE = [
  ': stream open\n\n',
  'id: 3\nevent: message\ndata: {"id":"m3","sequence":3,"text":"Hello: there"}\n\n',
  ': heartbeat\n\n',
  'event: status\ndata: {"status":"escalated","status_as_of":5}\n\n',
  'event: reconnect\ndata: {"reason":"lifetime"}\n\n',
].join('');

const EXPECTED: Parsed = [
  ['message', '{"id":"m3","sequence":3,"text":"Hello: there"}'],
  ['status', '{"status":"escalated","status_as_of":5}'],
  ['reconnect', '{"reason":"lifetime"}'],
];

describe('the text/event-stream parser', () => {
  it("reads the relay's events and skips its comments", () => {
    expect(parse([RELAY_LIKE])).toEqual(EXPECTED);
  });

  it('joins multi-line data with LF, takes the value after one optional space, and defaults the type to message', () => {
    expect(parse(['data: first\ndata:second\ndata:  third\n\n'])).toEqual([['message', 'first\nsecond\n third']]);
    expect(parse(['event:ping\ndata\n\n'])).toEqual([['ping', '']]);
  });

  it('dispatches nothing for an event without data, nor for one not ended by a blank line yet', () => {
    expect(parse(['event: status\n\n', ': only a comment\n\n', 'data: pending\n'])).toEqual([]);
  });

  it('skips comments, even those that look like fields, and fields it does not know', () => {
    expect(parse([':data: not data\n:event: status\nretry: 10\nid: 7\nevent: status\ndata: x\n\n'])).toEqual([
      ['status', 'x'],
    ]);
  });

  it('resets the type after each event', () => {
    expect(parse(['event: status\ndata: a\n\ndata: b\n\n'])).toEqual([
      ['status', 'a'],
      ['message', 'b'],
    ]);
  });

  it.each([
    ['CRLF', '\r\n'],
    ['CR', '\r'],
    ['LF', '\n'],
  ])('accepts %s line endings', (_name, ending) => {
    expect(parse([RELAY_LIKE.replaceAll('\n', ending)])).toEqual(EXPECTED);
  });

  it('a CRLF split between two chunks ends one line, not two', () => {
    expect(parse(['data: a\r', '\ndata: b\r', '\n\r', '\n'])).toEqual([['message', 'a\nb']]);
    // A CR, then an LF chunk, then another LF: a line end and a blank line.
    expect(parse(['data: a\r', '\n', '\n'])).toEqual([['message', 'a']]);
  });

  it('gives the same events however the text is cut into chunks, whatever the line endings (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom('\n', '\r\n', '\r'), fc.array(fc.nat(), { maxLength: 40 }), (ending, places) => {
        const text = RELAY_LIKE.replaceAll('\n', ending);
        expect(parse(cut(text, places))).toEqual(EXPECTED);
      }),
      { numRuns: 500 },
    );
  });

  it('gives the same events for generated streams cut anywhere, one character at a time included (property)', () => {
    const value = fc
      .string({ unit: fc.constantFrom('a', 'é', '💬', ':', ' ', '{', '"') })
      .filter((text) => !text.startsWith(' '));
    const event = fc.record({
      type: fc.constantFrom('', 'message', 'status'),
      lines: fc.array(value, { minLength: 1, maxLength: 3 }),
    });
    fc.assert(
      fc.property(
        fc.array(event, { maxLength: 5 }),
        fc.constantFrom('\n', '\r\n'),
        fc.array(fc.nat(), { maxLength: 30 }),
        (events, ending, places) => {
          const text = events
            .map(
              ({ type, lines }) =>
                `${type ? `event: ${type}${ending}` : ''}${lines.map((line) => `data: ${line}${ending}`).join('')}: comment${ending}${ending}`,
            )
            .join('');
          const expected = events.map(({ type, lines }) => [type || 'message', lines.join('\n')]);
          expect(parse(cut(text, places))).toEqual(expected);
          expect(parse([...text])).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});
