// The terms of docs/glossary.md, fixed per language, are the words the emergency notice and the texts about the
// assistant and the team use: a patient reads the same word for the same thing everywhere.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CATALOGS } from '../../../src/shared/locales/catalogs.ts';
import { LOCALE_TAGS, type LocaleTag } from '../../../src/shared/locales/locale-list.ts';

const TERMS = ['emergency', 'emergency room', '911', 'team member', 'automated assistant'] as const;
type Term = (typeof TERMS)[number];

/** The glossary's table: one row per locale, one column per term. */
function readGlossary(): Map<string, Record<Term, string>> {
  const markdown = readFileSync(new URL('../../../docs/glossary.md', import.meta.url), 'utf8');
  const rows = markdown.split('\n').filter((line) => line.startsWith('| '));
  const [header, , ...body] = rows.map((line) => line.split('|').slice(1, -1).map((cell) => cell.trim()));
  expect(header).toEqual(['locale', ...TERMS]);
  return new Map(body.map(([locale, ...cells]) => [locale!, Object.fromEntries(TERMS.map((term, index) => [term, cells[index]!])) as Record<Term, string>]));
}

const glossary = readGlossary();

/** Whether `text` uses the term: exactly, or any ending after a stem written with a trailing `…`. */
function uses(text: string, term: string, tag: LocaleTag): boolean {
  const lower = (value: string) => value.toLocaleLowerCase(tag);
  return lower(text).includes(lower(term.replace(/…$/, '')));
}

describe('the glossary', () => {
  it('has one row for every locale, with every term filled in', () => {
    expect([...glossary.keys()].sort()).toEqual([...LOCALE_TAGS].sort());
    for (const [locale, terms] of glossary) for (const term of TERMS) expect(terms[term], `${locale} ${term}`).not.toBe('');
  });

  it('keeps 911 as it is dialled in every language', () => {
    for (const terms of glossary.values()) expect(terms['911']).toBe('911');
  });
});

describe.each(LOCALE_TAGS)('%s', (tag) => {
  const terms = glossary.get(tag)!;
  const catalog = CATALOGS[tag];

  it('says emergency, 911 and emergency room in its emergency notice, in the glossary\'s words', () => {
    const notice = catalog.emergencyNotice.replace('{number}', '911');
    for (const term of ['emergency', 'emergency room', '911'] as const) expect(uses(notice, terms[term], tag), `${term}: ${notice}`).toBe(true);
    // The number is filled in, never written into the words: a practice elsewhere may set another one.
    expect(catalog.emergencyNotice).not.toContain('911');
  });

  it('calls the assistant and the team member by the glossary\'s words', () => {
    expect(uses(catalog.automatedNotice, terms['automated assistant'], tag), catalog.automatedNotice).toBe(true);
    expect(uses(catalog.automatedNotice, terms['team member'], tag), catalog.automatedNotice).toBe(true);
    expect(uses(catalog.agentLabel, terms['team member'], tag), catalog.agentLabel).toBe(true);
    expect(uses(catalog.escalated, terms['team member'], tag), catalog.escalated).toBe(true);
  });
});
