import { describe, expect, it } from 'vitest';
import { findSensitiveNumbers } from '../../../../src/frame/text/sensitive.ts';

describe('findSensitiveNumbers', () => {
  it.each([
    '4111 1111 1111 1111',
    '4111-1111-1111-1111',
    '4111111111111111',
    'my card is 5500 0000 0000 0004 exp 12/28',
    '378282246310005',
  ])('finds a card in %j', (input) => {
    expect(findSensitiveNumbers(input)).toEqual(['card']);
  });

  it.each([
    '4111-1111-1111-1112',
    '4111  1111  1111  1111', // double spaces are not one number
    '0000 0000 0000 0000',
    'call (555) 010-0199',
    '555-010-0199',
    'appointment 2026-11-22 at 10:30',
    'born in 1984, seen 11/22/2026',
    'order 123456789',
    '123456789012345678901234',
    'hello',
  ])('finds nothing in %j', (input) => {
    expect(findSensitiveNumbers(input)).toEqual([]);
  });

  it.each(['123-45-6789', 'it is 123 45 6789.', 'my ssn is 123456789', 'Social Security: 123456789', 'SSN:123456789'])(
    'finds an SSN in %j',
    (input) => {
      expect(findSensitiveNumbers(input)).toEqual(['ssn']);
    },
  );

  it.each([
    '000-12-3456',
    '666-12-3456',
    '912-34-5678',
    '123-00-4567',
    '123-45-0000',
    '123-45 6789',
    'ssn 000123456',
    'ssn 1234567890',
  ])('finds no SSN in %j', (input) => {
    expect(findSensitiveNumbers(input)).toEqual([]);
  });

  it('finds both', () => {
    expect(findSensitiveNumbers('card 4111 1111 1111 1111 and ssn 123-45-6789')).toEqual(['card', 'ssn']);
  });
});
