import { describe, expect, it } from 'vitest';
import { API_ERROR_CODES } from '../../../../src/shared/wire.ts';
import { STRINGS, chooseLocale, formatTime, type Strings } from '../../../../src/frame/i18n.ts';

describe('chooseLocale', () => {
  it.each([
    ['es', [], 'es'],
    ['es-MX', ['en-US'], 'es'],
    ['ES_419', [], 'es'],
    ['en', ['es-ES'], 'en'],
    [null, ['es-ES', 'en'], 'es'],
    [null, ['en-US', 'es'], 'en'],
    [null, ['fr-FR', 'es'], 'es'],
    [null, ['fr-FR', 'de'], 'en'],
    [null, [], 'en'],
    ['', ['es'], 'es'],
    ['fr', ['es-AR'], 'es'],
    ['fr', [], 'en'],
    ['est', [], 'en'],
    ['  es  ', [], 'es'],
  ] as const)('chooses for %j and %j: %s', (requested, languages, expected) => {
    expect(chooseLocale(requested, languages)).toBe(expected);
  });
});

/** Renders every string of a locale with sample arguments, keyed by path. */
function render(strings: Strings): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(strings) as [string, unknown][]) {
    if (typeof value === 'string') out.set(key, value);
    else if (typeof value === 'function') {
      const sample = key === 'charactersLeft' ? 42 : key === 'sensitiveBody' ? ['card'] : 'Molar Mo';
      out.set(key, String((value as (argument: unknown) => unknown)(sample)));
    } else {
      for (const [code, words] of Object.entries(value as Record<string, unknown>)) out.set(`${key}.${code}`, String(words));
    }
  }
  return out;
}

describe('STRINGS', () => {
  const en = render(STRINGS.en);
  const es = render(STRINGS.es);

  it('has the same keys in both locales', () => {
    expect([...es.keys()].sort()).toEqual([...en.keys()].sort());
    expect(Object.keys(STRINGS.es).sort()).toEqual(Object.keys(STRINGS.en).sort());
  });

  it('has words for every error code, the network and a bad response', () => {
    for (const strings of [STRINGS.en, STRINGS.es]) {
      expect(Object.keys(strings.errors).sort()).toEqual([...API_ERROR_CODES, 'network', 'bad_response'].sort());
    }
  });

  it('has no empty string and translates every string', () => {
    for (const [key, words] of en) {
      expect(words.trim(), key).not.toBe('');
      expect(es.get(key), key).not.toBe(words);
      expect(es.get(key)?.trim(), key).not.toBe('');
    }
  });

  it('fills in the arguments', () => {
    expect(STRINGS.en.panelLabel('Molar Mo')).toBe('Chat with Molar Mo');
    expect(STRINGS.en.typing('Molar Mo')).toBe('Molar Mo is typing…');
    expect(STRINGS.en.charactersLeft(12)).toBe('12 characters left');
    expect(STRINGS.en.charactersLeft(1)).toBe('1 character left');
    expect(STRINGS.es.charactersLeft(12)).toBe('Quedan 12 caracteres');
    expect(STRINGS.en.emergencyNotice()).toBe('Not for emergencies. If this is an emergency, call 911.');
    expect(STRINGS.en.emergencyNotice('112')).toContain('call 112.');
    expect(STRINGS.es.emergencyNotice()).toContain('911');
    expect(STRINGS.en.agentLabel('Dana')).toBe('Dana (team member)');
    expect(STRINGS.en.newMessageAnnouncement('Dana')).toBe('New message from Dana');
  });

  it('names what was found in the sensitive-number warning', () => {
    expect(STRINGS.en.sensitiveBody(['card'])).toBe(
      "This looks like it contains a card number. Please don't share card or Social Security numbers in chat.",
    );
    expect(STRINGS.en.sensitiveBody(['ssn'])).toContain('contains a Social Security number.');
    expect(STRINGS.en.sensitiveBody(['card', 'ssn'])).toContain('a card number and a Social Security number');
    expect(STRINGS.es.sensitiveBody(['ssn'])).toContain('un número de Seguro Social');
  });
});

describe('formatTime', () => {
  it('formats hours and minutes in the locale', () => {
    const iso = '2026-11-22T10:30:00Z';
    const expected = (locale: string) => new Intl.DateTimeFormat(locale, { hour: 'numeric', minute: '2-digit' }).format(new Date(iso));
    expect(formatTime(iso, 'en')).toBe(expected('en'));
    expect(formatTime(iso, 'es')).toBe(expected('es'));
    expect(formatTime(iso, 'en')).toMatch(/^\d{1,2}:\d{2}\s?[AP]M$/);
    expect(formatTime(iso, 'en')).not.toContain('2026');
  });

  it('gives an empty string for something that is not a date', () => {
    expect(formatTime('not a date', 'en')).toBe('');
    expect(formatTime('', 'es')).toBe('');
  });
});
