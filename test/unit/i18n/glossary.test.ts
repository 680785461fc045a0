// The terms of docs/glossary.md, fixed per language, are the words the emergency notice and the texts about the
// assistant and the team use: a patient reads the same word for the same thing everywhere.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CATALOGS } from '../../../src/shared/locales/catalogs.ts';
import { LOCALE_TAGS, type LocaleTag } from '../../../src/shared/locales/locale-list.ts';

const TERMS = ['emergency', 'emergency room', '911', 'team member', 'automated assistant'] as const;
type Term = (typeof TERMS)[number];

const markdown = readFileSync(new URL('../../../docs/glossary.md', import.meta.url), 'utf8');

/** The glossary's tables in order, each as rows of trimmed cells (header first, the `---` line dropped). */
const tables = markdown
  .split(/\n(?!\| )/)
  .map((block) => block.split('\n').filter((line) => line.startsWith('| ')))
  .filter((rows) => rows.length > 2)
  .map((rows) =>
    rows
      .filter((_, index) => index !== 1)
      .map((line) =>
        line
          .split('|')
          .slice(1, -1)
          .map((cell) => cell.trim()),
      ),
  );

/** The terms' table: one row per locale, one column per term. */
function readGlossary(): Map<string, Record<Term, string>> {
  const [header, ...body] = tables[0]!;
  expect(header).toEqual(['locale', ...TERMS]);
  return new Map(
    body.map(([locale, ...cells]) => [
      locale!,
      Object.fromEntries(TERMS.map((term, index) => [term, cells[index]!])) as Record<Term, string>,
    ]),
  );
}

/** The register's table: per locale, the forms of the other register that the catalog never uses. */
function readRegisters(): Map<string, { register: string; never: string[] }> {
  const [header, ...body] = tables[1]!;
  expect(header).toEqual(['locale', 'register', 'never in the catalog']);
  return new Map(
    body.map(([locale, register, never]) => [
      locale!,
      { register: register!, never: never === '—' ? [] : never!.split(/,\s*/) },
    ]),
  );
}

/** The table of words that must never name the bot: per locale, the words (a stem ends in `…`) and why. */
function readNotTheBot(): Map<string, string[]> {
  const [header, ...body] = tables[2]!;
  expect(header).toEqual(['locale', 'never in the catalog', 'why']);
  return new Map(body.map(([locale, never]) => [locale!, never!.split(/,\s*/)]));
}

const glossary = readGlossary();
const registers = readRegisters();
const notTheBot = readNotTheBot();

/** Every text the catalog addresses to the patient: all but the suggested first messages, the patient's own words. */
function practiceTexts(tag: LocaleTag): [string, string][] {
  const { suggestions: _patientsWords, errors, charactersLeft, ...texts } = CATALOGS[tag];
  return [
    ...Object.entries(texts),
    ...Object.entries(errors).map(([key, text]) => [`errors.${key}`, text] as [string, string]),
    ...Object.entries(charactersLeft),
  ];
}

/** Whether `form` occurs in `text` as a whole word (no letter or mark either side), case-insensitively. */
function hasWord(text: string, form: string, tag: LocaleTag): boolean {
  const escaped = form.toLocaleLowerCase(tag).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\p{L}\\p{M}])${escaped}(?![\\p{L}\\p{M}])`, 'u').test(text.toLocaleLowerCase(tag));
}

/** Whether `text` uses the term: exactly, or any ending after a stem written with a trailing `…`. */
function uses(text: string, term: string, tag: LocaleTag): boolean {
  const lower = (value: string) => value.toLocaleLowerCase(tag);
  return lower(text).includes(lower(term.replace(/…$/, '')));
}

describe('the glossary', () => {
  it('has one row for every locale, with every term filled in', () => {
    expect([...glossary.keys()].sort()).toEqual([...LOCALE_TAGS].sort());
    for (const [locale, terms] of glossary)
      for (const term of TERMS) expect(terms[term], `${locale} ${term}`).not.toBe('');
  });

  it('records one register for every locale', () => {
    expect([...registers.keys()].sort()).toEqual([...LOCALE_TAGS].sort());
    for (const [locale, { register }] of registers) expect(register, locale).not.toBe('');
  });

  it('keeps 911 as it is dialled in every language', () => {
    for (const terms of glossary.values()) expect(terms['911']).toBe('911');
  });
});

describe.each(LOCALE_TAGS)('%s', (tag) => {
  const terms = glossary.get(tag)!;
  const catalog = CATALOGS[tag];

  it("says emergency, 911 and emergency room in its emergency notice, in the glossary's words", () => {
    const notice = catalog.emergencyNotice.replace('{number}', '911');
    for (const term of ['emergency', 'emergency room', '911'] as const)
      expect(uses(notice, terms[term], tag), `${term}: ${notice}`).toBe(true);
    // The number is filled in, never written into the words: a practice elsewhere may set another one.
    expect(catalog.emergencyNotice).not.toContain('911');
  });

  it("says emergency and the number in the notice's instruction, in the glossary's words", () => {
    const instruction = catalog.emergencyInstruction.replace('{number}', '911');
    for (const term of ['emergency', '911'] as const)
      expect(uses(instruction, terms[term], tag), `${term}: ${instruction}`).toBe(true);
    expect(catalog.emergencyInstruction).not.toContain('911');
  });

  it("calls the assistant and the team member by the glossary's words", () => {
    expect(uses(catalog.automatedNotice, terms['automated assistant'], tag), catalog.automatedNotice).toBe(true);
    expect(uses(catalog.automatedNotice, terms['team member'], tag), catalog.automatedNotice).toBe(true);
    expect(uses(catalog.agentLabel, terms['team member'], tag), catalog.agentLabel).toBe(true);
    expect(uses(catalog.escalated, terms['team member'], tag), catalog.escalated).toBe(true);
    expect(uses(catalog.agentTyping, terms['team member'], tag), catalog.agentTyping).toBe(true);
  });
});

describe.each(LOCALE_TAGS)('%s', (tag) => {
  it('never names the bot by a word that also names a person at the practice', () => {
    for (const word of notTheBot.get(tag) ?? [])
      for (const [key, text] of practiceTexts(tag))
        expect(uses(text, word, tag), `${tag} ${key} uses "${word}": ${text}`).toBe(false);
  });

  it('speaks in its one register: no form the glossary lists for the other', () => {
    for (const form of registers.get(tag)!.never)
      for (const [key, text] of practiceTexts(tag))
        expect(hasWord(text, form, tag), `${tag} ${key} uses "${form}": ${text}`).toBe(false);
  });
});

describe('names filled into a sentence keep their written form', () => {
  // A preposition right before the name would decline it ("с Анной", "od Anny"); the glossary's rule.
  const governing = {
    ru: ['с', 'со', 'от', 'для', 'к', 'ко', 'у', 'о', 'об', 'без'],
    pl: ['z', 'ze', 'od', 'dla', 'do', 'u', 'o', 'bez'],
  } as const;

  it.each(Object.entries(governing))('%s never puts a name straight after a preposition', (tag, prepositions) => {
    for (const [key, text] of practiceTexts(tag as LocaleTag)) {
      const before = [...text.matchAll(/(\p{L}+)\s+\{(?:bot|name|author)\}/gu)].map((match) =>
        match[1]!.toLocaleLowerCase(tag),
      );
      for (const word of before)
        expect((prepositions as readonly string[]).includes(word), `${tag} ${key}: ${text}`).toBe(false);
    }
  });

  it('fr never puts a name straight after a word that elides before a vowel ("de Aimee" for "d’Aimee")', () => {
    const eliding = ['de', 'que', 'le', 'la', 'je', 'me', 'te', 'se', 'ne', 'ce', 'jusque', 'lorsque', 'puisque'];
    for (const [key, text] of practiceTexts('fr')) {
      const before = [...text.matchAll(/(\p{L}+)\s+\{(?:bot|name|author)\}/gu)].map((match) => match[1]!.toLowerCase());
      for (const word of before) expect(eliding.includes(word), `fr ${key}: ${text}`).toBe(false);
    }
  });

  it("ar conjugates no verb for a name: the name may be a woman's or a man's", () => {
    // Third-person "writes", masculine and feminine: the typing line names the bot and, after the hand-off, the team
    // member who wrote.
    const gendered = ['يكتب', 'تكتب'];
    for (const [key, text] of practiceTexts('ar'))
      if (/\{(?:bot|name|author)\}/.test(text))
        for (const verb of gendered) expect(hasWord(text, verb, 'ar'), `ar ${key}: ${text}`).toBe(false);
  });

  it('ko titles and the typing line put no sound-dependent particle after the name', () => {
    for (const key of ['panelLabel', 'typing'] as const)
      expect(CATALOGS.ko[key], key).not.toMatch(/\}[가-힣]*\([가-힣]+\)/u);
  });
});
