import { describe, expect, it } from 'vitest';
import { sniffImageType } from '../../../src/relay/logo/sniff-image.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('sniffImageType', () => {
  it.each([
    ['PNG', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]), 'image/png'],
    ['JPEG', new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0]), 'image/jpeg'],
    ['GIF', bytes('GIF89a\u0001\u0000'), 'image/gif'],
    ['WebP', bytes('RIFF\u0000\u0000\u0000\u0000WEBPVP8 '), 'image/webp'],
    ['a bare SVG', bytes('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'image/svg+xml'],
    [
      'an SVG with a BOM, XML declaration, comment and doctype',
      bytes(
        '\uFEFF<?xml version="1.0"?>\n<!-- logo -->\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x.dtd">\n<svg viewBox="0 0 1 1"></svg>',
      ),
      'image/svg+xml',
    ],
  ])('recognises %s', (_name, input, type) => {
    expect(sniffImageType(input)).toBe(type);
  });

  it.each([
    ['an HTML page with an SVG inside', bytes('<!doctype html><html><svg></svg></html>')],
    ['an HTML page that starts with a comment', bytes('<!-- x --><html><body>hi</body></html>')],
    ['a script', bytes('alert(1)')],
    ['an element whose name only starts with svg', bytes('<svgx></svgx>')],
    ['nothing', new Uint8Array()],
    ['RIFF that is not WebP', bytes('RIFF\u0000\u0000\u0000\u0000WAVEfmt ')],
    ['bytes that are not UTF-8', new Uint8Array([0x3c, 0x73, 0x76, 0x67, 0x20, 0xff, 0xfe])],
  ])('refuses %s', (_name, input) => {
    expect(sniffImageType(input)).toBeNull();
  });
});
