// Parsing is linear in time: every regular expression in src/ is found in the compiler's syntax tree and proved safe
// (no exponential or polynomial backtracking) by recheck, which reads the pattern as an automaton and, when it is too
// big for that, fuzzes it. A pattern recheck cannot decide fails too, as a vulnerable one does: no pattern here is
// waved through. A pattern whose source is computed must be listed below, with why, and is checked as it is built
// wherever it can be built here.
import { fileURLToPath } from 'node:url';
import { check, type Diagnostics } from 'recheck';
import { describe, expect, it } from 'vitest';
import { LOADER_OWN_PROPERTIES } from '../../../src/loader/own-properties.ts';
import { PANEL_OWN_PROPERTIES } from '../../../src/frame/model/own-properties.ts';
import { MAX_HANDLE_LENGTH } from '../../../src/relay/conversations/handles.ts';
import {
  type BuiltPattern,
  findRegularExpressions,
  type WrittenPattern,
} from '../../support/find-regular-expressions.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface Listed {
  /** Why the source is computed, and why that is no way in for outside input. */
  reason: string;
  /** The values of the template's substitutions, by the expression written there, to check the pattern it builds. */
  substitutions?: Record<string, string | number>;
}

/** The computed patterns, by file and the expression as written. */
const LISTED: Record<string, Listed> = {
  "src/loader/own-properties.ts: new RegExp(`^(${LOADER_OWN_PROPERTIES.join('|')})$`)": {
    reason: "the minifier's list of the loader's property names, at build time",
    substitutions: { "LOADER_OWN_PROPERTIES.join('|')": LOADER_OWN_PROPERTIES.join('|') },
  },
  "src/frame/model/own-properties.ts: new RegExp(`^(${PANEL_OWN_PROPERTIES.join('|')})$`)": {
    reason: "the minifier's list of the panel's property names, at build time",
    substitutions: { "PANEL_OWN_PROPERTIES.join('|')": PANEL_OWN_PROPERTIES.join('|') },
  },
  "src/relay/routes/bearer-handle.ts: new RegExp(`^bearer ([A-Za-z0-9_-]{1,${MAX_HANDLE_LENGTH}})$`, 'i')": {
    reason: "the handle's longest length, a constant, is the pattern's one bound",
    substitutions: { MAX_HANDLE_LENGTH },
  },
  'src/simulator/cli-options.ts: new RegExp(raw)': {
    reason:
      "the simulator's fault flag, a pattern its operator writes on the command line (tests, benches): never from a page, a header, storage or the relay",
  },
  'src/simulator/faults.ts: RegExp': {
    reason: 'z.instanceof(RegExp) tests a value for being a pattern; it builds none',
  },
};

const found = findRegularExpressions(ROOT, 'src');
const written = found.filter((pattern): pattern is WrittenPattern => pattern.kind === 'written');
const built = found.filter((pattern): pattern is BuiltPattern => pattern.kind === 'built');
const key = (pattern: BuiltPattern) => `${pattern.file}: ${pattern.code}`;

/** The source a listed template builds, from its substitutions' values. */
function builtSource(pattern: BuiltPattern, substitutions: Record<string, string | number>) {
  const { template } = pattern;
  if (!template || pattern.flags === null) return null;
  let source = template.head;
  for (const span of template.spans) {
    if (!Object.hasOwn(substitutions, span.expression)) return null;
    source += String(substitutions[span.expression]) + span.text;
  }
  return { source, flags: pattern.flags };
}

// recheck's defaults, with a longer time per pattern than its ten seconds: on a shared machine a slow answer is
// 'unknown', and that fails the test, so the limit only decides how long a truly undecidable pattern is tried.
const RECHECK = { timeout: 60_000 } as const;

function explain(result: Diagnostics): string {
  if (result.status === 'vulnerable')
    return `${result.complexity.type} backtracking, e.g. on ${result.attack.pattern}; hot spots: ${result.hotspot
      .map((spot) => result.source.slice(spot.start, spot.end))
      .join(', ')}`;
  return result.status === 'unknown' ? `recheck could not decide: ${JSON.stringify(result.error)}` : 'safe';
}

describe('every regular expression in src/', () => {
  it('holds the language tag of the loader, to show the finder read src/ (its own test holds how it reads)', () => {
    expect(written.map(({ file }) => file)).toContain('src/shared/language-tag.ts');
  });

  it.each(built.map(key))('computed at %s is listed with a reason', (name) => {
    expect(LISTED[name]?.reason, `${name} builds a pattern from a non-literal source: list it, with why`).toBeTruthy();
  });

  it('lists no computed pattern that is no longer there', () => {
    expect(Object.keys(LISTED).filter((name) => !built.some((pattern) => key(pattern) === name))).toEqual([]);
  });

  const checked = [
    ...written.map(({ file, line, source, flags }) => ({ at: `${file}:${line}`, source, flags })),
    ...built.flatMap((pattern) => {
      const substitutions = LISTED[key(pattern)]?.substitutions;
      const source = substitutions ? builtSource(pattern, substitutions) : null;
      return source ? [{ at: `${pattern.file}:${pattern.line}`, ...source }] : [];
    }),
  ];

  it('builds each listed pattern whose substitutions it is given, to check it below', () => {
    const unbuilt = built.filter((pattern) => {
      const substitutions = LISTED[key(pattern)]?.substitutions;
      return substitutions !== undefined && builtSource(pattern, substitutions) === null;
    });
    expect(unbuilt.map(key)).toEqual([]);
  });

  it.each(checked.map(({ at, source, flags }) => [at, `/${source}/${flags}`, source, flags] as const))(
    'at %s, %s, matches in linear time',
    async (_at, _shown, source, flags) => {
      const result = await check(source, flags, RECHECK);
      expect(result.status, explain(result)).toBe('safe');
    },
    RECHECK.timeout + 30_000,
  );
});
