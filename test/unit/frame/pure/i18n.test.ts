import { describe, expect, it } from 'vitest';
import { formatTime } from '../../../../src/frame/i18n.ts';
import { LOCALE_TAGS, localeInfo } from '../../../../src/shared/locales/locale-list.ts';
import { STRINGS } from '../strings.ts';

const FSI = '\u2068';
const PDI = '\u2069';

describe("the panel's words, built from a catalog", () => {
  it('fills in the arguments', () => {
    expect(STRINGS.en.panelLabel('Molar Mo')).toBe('Chat with Molar Mo');
    expect(STRINGS.en.typing('Molar Mo')).toBe('Molar Mo is typing…');
    expect(STRINGS.en.emergencyNotice()).toBe(
      'Not for emergencies. In an emergency, call 911 or go to the nearest emergency room.',
    );
    expect(STRINGS.en.emergencyNotice('112')).toContain('call 112 or');
    expect(STRINGS.es.emergencyNotice()).toContain('911');
    expect(STRINGS.en.emergencyInstruction()).toBe('In an emergency, call 911.');
    expect(STRINGS.en.emergencyInstruction('112')).toBe('In an emergency, call 112.');
    expect(STRINGS.en.agentLabel('Dana')).toBe('Dana (team member)');
    expect(STRINGS.en.newMessageAnnouncement('Dana', 'Hello')).toBe('New message from Dana: Hello');
    expect(STRINGS.de.greeting('Robin')).toBe('Hallo, ich bin Robin. Wie kann ich helfen?');
  });

  it('chooses plural forms with Intl.PluralRules and writes the number with Intl.NumberFormat', () => {
    expect(STRINGS.en.charactersLeft(1)).toBe('1 character left');
    expect(STRINGS.en.charactersLeft(12)).toBe('12 characters left');
    expect(STRINGS.en.charactersLeft(1200)).toBe('1,200 characters left');
    expect(STRINGS.es.charactersLeft(12)).toBe('Quedan 12 caracteres');
    expect(STRINGS.es.charactersLeft(1)).toBe('Queda 1 carácter');
    expect(STRINGS.ru.charactersLeft(1)).toBe('Остался 1 символ');
    expect(STRINGS.ru.charactersLeft(21)).toBe('Остался 21 символ');
    expect(STRINGS.ru.charactersLeft(3)).toBe('Осталось 3 символа');
    expect(STRINGS.ru.charactersLeft(5)).toBe('Осталось 5 символов');
    expect(STRINGS.ru.charactersLeft(11)).toBe('Осталось 11 символов');
    expect(STRINGS.pl.charactersLeft(22)).toBe('Pozostały 22 znaki');
    expect(STRINGS.pl.charactersLeft(25)).toBe('Pozostało 25 znaków');
    expect(STRINGS.fr.charactersLeft(0)).toBe('0 caractère restant');
    expect(STRINGS.ja.charactersLeft(7)).toBe('残り7文字');
  });

  it('uses all six Arabic plural forms, the number isolated from the right-to-left sentence', () => {
    const digits = (count: number) => `${FSI}${new Intl.NumberFormat('ar').format(count)}${PDI}`;
    expect(STRINGS.ar.charactersLeft(0)).toBe('لم يتبقَّ أي حرف');
    expect(STRINGS.ar.charactersLeft(1)).toBe('تبقّى حرف واحد');
    expect(STRINGS.ar.charactersLeft(2)).toBe('تبقّى حرفان');
    expect(STRINGS.ar.charactersLeft(3)).toBe(`تبقّت ${digits(3)} أحرف`);
    expect(STRINGS.ar.charactersLeft(11)).toBe(`تبقّى ${digits(11)} حرفًا`);
    expect(STRINGS.ar.charactersLeft(100)).toBe(`تبقّى ${digits(100)} حرف`);
  });

  it('isolates names filled into right-to-left sentences, and only there', () => {
    expect(STRINGS.ar.panelLabel('Molar Mo')).toBe(`الدردشة مع ${FSI}Molar Mo${PDI}`);
    expect(STRINGS.fa.agentLabel('Dr. Lee')).toBe(`${FSI}Dr. Lee${PDI} (از کارکنان مطب)`);
    expect(STRINGS.ar.emergencyNotice()).toContain(`${FSI}911${PDI}`);
    expect(STRINGS.fa.emergencyInstruction()).toContain(`${FSI}911${PDI}`);
    expect(STRINGS.en.panelLabel('د. علي')).toBe('Chat with د. علي');
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
  const iso = '2026-11-22T10:30:00Z';

  it.each(LOCALE_TAGS)('formats hours and minutes with Intl in %s', (tag) => {
    const expected = new Intl.DateTimeFormat(localeInfo(tag).intl, { hour: 'numeric', minute: '2-digit' }).format(
      new Date(iso),
    );
    expect(formatTime(iso, tag)).toBe(expected);
    expect(formatTime(iso, tag)).not.toContain('2026');
  });

  it("writes English times with AM/PM and Haitian ones with Haiti's 24-hour clock", () => {
    expect(formatTime(iso, 'en')).toMatch(/^\d{1,2}:\d{2}\s?[AP]M$/);
    expect(formatTime(iso, 'ht')).toMatch(/^\d{2}:\d{2}$/);
  });

  it('gives an empty string for something that is not a date', () => {
    expect(formatTime('not a date', 'en')).toBe('');
    expect(formatTime('', 'es')).toBe('');
  });
});
