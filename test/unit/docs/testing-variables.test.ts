// docs/testing.md lists the variables the tests read, apart from the relay's settings: a variable a test reads but the
// page leaves out is a knob nobody finds when a tool lives elsewhere, and a default that differs sends them looking
// in the wrong place. The page is checked against the sources themselves: each variable read from `process.env`
// under test/ and tools/, and the literal default written beside its read (`|| 'default'` or `?? 'default'`).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { SETTING_NAMES } from '../../../src/relay/settings.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The shell's own, which a test passes on rather than reads as a setting. */
const NOT_TEST_VARIABLES = new Set(['PATH']);

function sourcesUnder(directory: string): string[] {
  return readdirSync(join(ROOT, directory), { recursive: true, encoding: 'utf8' })
    .filter((path) => /\.(ts|mjs|js)$/.test(path) && !path.includes('node_modules'))
    .map((path) => readFileSync(join(ROOT, directory, path), 'utf8'));
}

/** Each variable the sources read, with the literal defaults written beside its reads. */
function variablesRead(): Map<string, Set<string>> {
  const read = new Map<string, Set<string>>();
  for (const source of [...sourcesUnder('test'), ...sourcesUnder('tools')]) {
    // test/support/ensure-tools.mjs names the variables it reads in a table (`variable: 'REDIS_SERVER_PATH'`).
    const names = [
      ...source.matchAll(/process\.env\.([A-Z][A-Z0-9_]*)(?:\s*(?:\|\||\?\?)\s*'([^']*)')?/g),
      ...source.matchAll(/\bvariable: '([A-Z][A-Z0-9_]*)'/g),
    ];
    for (const [, name, fallback] of names) {
      if (NOT_TEST_VARIABLES.has(name!)) continue;
      const defaults = read.get(name!) ?? new Set<string>();
      if (fallback !== undefined) defaults.add(fallback);
      read.set(name!, defaults);
    }
  }
  return read;
}

function documentedVariables(): Map<string, string | null> {
  const page = readFileSync(join(ROOT, 'docs/testing.md'), 'utf8');
  const section = page.slice(page.indexOf('## Variables the tests read'));
  const table = section.slice(0, section.indexOf('\n## '));
  return new Map(
    [...table.matchAll(/^\| `([A-Z0-9_]+)` \| ([^|]*) \|/gm)].map(([, name, cell]) => {
      const fixed = /^`([^`]*)`$/.exec(cell!.trim());
      return [name!, fixed ? fixed[1]! : null];
    }),
  );
}

it('docs/testing.md lists every variable the tests read, with the default they use, and none of the relay settings', () => {
  const read = variablesRead();
  const documented = documentedVariables();
  expect([...documented.keys()].sort()).toEqual(
    [...read.keys()].filter((name) => !SETTING_NAMES.includes(name)).sort(),
  );
  for (const [name, fallback] of documented)
    expect({ name, defaults: [...(read.get(name) ?? [])] }).toEqual({
      name,
      defaults: fallback === null ? [] : [fallback],
    });
});
