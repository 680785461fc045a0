import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { splitLinks, type TextSegment } from '../../../../src/frame/text/links.ts';

const text = (value: string): TextSegment => ({ kind: 'text', text: value });
const link = (value: string, href: string): TextSegment => ({ kind: 'link', text: value, href });

describe('splitLinks', () => {
  it('keeps plain text as one text segment', () => {
    expect(splitLinks('Do you open on Saturdays?')).toEqual([text('Do you open on Saturdays?')]);
  });

  it('returns nothing for empty text', () => {
    expect(splitLinks('')).toEqual([]);
  });

  it('leaves a sentence-ending dot outside the link', () => {
    expect(splitLinks('Our hours: https://smile.example/hours?x=1.')).toEqual([
      text('Our hours: '),
      link('https://smile.example/hours?x=1', 'https://smile.example/hours?x=1'),
      text('.'),
    ]);
  });

  it('links http and gives URL.href as href', () => {
    expect(splitLinks('see HTTP://Smile.Example')).toEqual([
      text('see '),
      link('HTTP://Smile.Example', 'http://smile.example/'),
    ]);
  });

  it.each([
    'javascript:alert(1)',
    'JaVaScRiPt:alert(document.cookie)',
    'data:text/html,<script>alert(1)</script>',
    'vbscript:msgbox(1)',
    'file:///etc/passwd',
    '/relative/path and ../up',
    'javascript:https://smile.example',
    'xhttps://smile.example',
    'https:// nothing here',
    'www. alone',
    'tel:call-me',
    'mailto:nobody',
  ])('keeps %j as text', (input) => {
    expect(splitLinks(input)).toEqual([text(input)]);
  });

  it('links mailto: and tel:', () => {
    expect(splitLinks('Write to mailto:front@smile.example or call tel:+15550100199!')).toEqual([
      text('Write to '),
      link('mailto:front@smile.example', 'mailto:front@smile.example'),
      text(' or call '),
      link('tel:+15550100199', 'tel:+15550100199'),
      text('!'),
    ]);
  });

  it('links a bare www. host with https', () => {
    expect(splitLinks('Visit www.smile.example, thanks')).toEqual([
      text('Visit '),
      link('www.smile.example', 'https://www.smile.example/'),
      text(', thanks'),
    ]);
  });

  it('leaves markup as text, unchanged', () => {
    const input = 'hi <img src=x onerror=alert(1)> there';
    expect(splitLinks(input)).toEqual([text(input)]);
  });

  it('does not let markup ride along in a link', () => {
    const segments = splitLinks('https://smile.example/<script>');
    expect(segments).toEqual([link('https://smile.example/', 'https://smile.example/'), text('<script>')]);
  });

  it('leaves the parentheses around a link as text', () => {
    expect(splitLinks('(see https://smile.example/map)')).toEqual([
      text('(see '),
      link('https://smile.example/map', 'https://smile.example/map'),
      text(')'),
    ]);
  });

  it('keeps a closing paren that the URL opened', () => {
    expect(splitLinks('(https://en.wikipedia.org/wiki/Crown_(dentistry))')).toEqual([
      text('('),
      link('https://en.wikipedia.org/wiki/Crown_(dentistry)', 'https://en.wikipedia.org/wiki/Crown_(dentistry)'),
      text(')'),
    ]);
  });

  it('finds several links and merges the text between them', () => {
    const segments = splitLinks('a https://a.example. b www.b.example?');
    expect(segments.map((segment) => segment.kind)).toEqual(['text', 'link', 'text', 'link', 'text']);
    expect(segments[2]).toEqual(text('. b '));
  });

  it('gives back the input when the segments are joined', () => {
    const pieces = fc.constantFrom(
      'https://smile.example/a?b=1',
      'www.smile.example',
      'mailto:a@b.example',
      'tel:+1555',
      'javascript:alert(1)',
      '(',
      ')',
      '.',
      ' ',
      '<b>',
      'é',
      '😀',
    );
    const messages = fc.oneof(
      fc.string({ unit: 'grapheme' }),
      fc.array(fc.oneof(pieces, fc.string()), { maxLength: 12 }).map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(messages, (message) => {
        const segments = splitLinks(message);
        expect(segments.map((segment) => segment.text).join('')).toBe(message);
        for (const segment of segments) {
          if (segment.kind === 'link') expect(new URL(segment.href).protocol).toMatch(/^(https?|mailto|tel):$/);
        }
      }),
    );
  });
});
