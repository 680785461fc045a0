// docs/settings.md is where an operator learns what the relay reads from its environment: a setting the relay parses
// but the page leaves out is one nobody can find, a row for a setting the relay no longer reads misleads, and a
// default or a range that differs from the code's is worse than none. The page is checked against the settings'
// own declarations (src/relay/settings/): each group is a section, each setting a row with its default and range.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SETTING_NAMES, SETTINGS_FACTS } from '../../../src/relay/settings.ts';
import type { SettingFacts } from '../../../src/relay/settings/values.ts';

const PAGE = readFileSync(new URL('../../../docs/settings.md', import.meta.url), 'utf8');

/** A default cell: `value` for a fixed default, an italic sentence (*(none)*, *(as REDIS_TLS)*) when there is none. */
function fallbackOf(cell: string): string | null {
  const fixed = /^`([^`]*)`$/.exec(cell);
  if (fixed) return fixed[1]!;
  if (cell.startsWith('*(') && cell.endsWith(')*')) return null;
  return `not a default: ${cell}`;
}

/** A range cell: `min–max` (an en dash), or empty for a setting that is not a number. */
function rangeOf(cell: string): SettingFacts['range'] | string {
  if (cell === '') return null;
  const range = /^(\d+)–(\d+)$/.exec(cell);
  return range ? { min: Number(range[1]), max: Number(range[2]) } : `not a range: ${cell}`;
}

/** Each section's rows, by the section's title. */
function documentedSections(): Map<string, { variable: string; fallback: unknown; range: unknown }[]> {
  const sections = new Map<string, { variable: string; fallback: unknown; range: unknown }[]>();
  let rows: { variable: string; fallback: unknown; range: unknown }[] = [];
  for (const line of PAGE.split('\n')) {
    const heading = /^## (.+)$/.exec(line);
    if (heading) {
      rows = [];
      sections.set(heading[1]!, rows);
    }
    const row = /^\| `([A-Z0-9_]+)` \| ([^|]*) \| ([^|]*) \|/.exec(line);
    if (row) rows.push({ variable: row[1]!, fallback: fallbackOf(row[2]!.trim()), range: rangeOf(row[3]!.trim()) });
  }
  return sections;
}

const byVariable = (a: { variable: string }, b: { variable: string }) => a.variable.localeCompare(b.variable);

describe('docs/settings.md', () => {
  const sections = documentedSections();

  it.each(SETTINGS_FACTS.map((group) => [group.title, group.settings] as const))(
    'has a section "%s" with each of its settings, their defaults and ranges',
    (title, settings) => {
      expect(sections.get(title)?.sort(byVariable)).toEqual(
        settings.map(({ variable, fallback, range }) => ({ variable, fallback, range })).sort(byVariable),
      );
    },
  );

  it('lists every setting the relay reads once, and nothing else', () => {
    const documented = [...sections.values()].flat().map((row) => row.variable);
    expect(documented.sort()).toEqual([...SETTING_NAMES].sort());
  });
});
