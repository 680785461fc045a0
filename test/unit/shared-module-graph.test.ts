// The `unit` project runs its files in workers that share one module graph (vite.config.ts): a file there must change
// nothing that the next file in the same worker would see. The scan (test/support/isolation-markers.ts) reads what
// would; every unit file that shows a marker must be one of the isolated ones, which run each in a fresh worker.
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ISOLATED_UNIT_TESTS } from '../support/isolated-unit-tests.ts';
import { isolationScan } from '../support/isolation-markers.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const unitTestFiles = (readdirSync(`${ROOT}test/unit`, { recursive: true }) as string[])
  .filter((file) => /\.test\.tsx?$/.test(file))
  .map((file) => `test/unit/${file}`)
  .sort();

const markersOf = isolationScan(ROOT);
const reasons = (file: string) => markersOf(file).map(({ file, reason }) => `${file}: ${reason}`);

const fixture = (name: string) => `test/support/isolation-fixtures/${name}.txt`;

describe('the unit files that share a module graph', () => {
  it('change nothing another file would see', () => {
    const shared = unitTestFiles.filter((file) => !ISOLATED_UNIT_TESTS.includes(file));
    const unsafe = Object.fromEntries(shared.map((file) => [file, reasons(file)]).filter(([, found]) => found!.length));
    expect(unsafe, 'add these to test/support/isolated-unit-tests.ts, or remove what they change').toEqual({});
    expect(shared.length).toBeGreaterThan(ISOLATED_UNIT_TESTS.length);
  });

  it('leave out only files that exist and need a fresh worker', () => {
    const needless = ISOLATED_UNIT_TESTS.filter((file) => !existsSync(`${ROOT}${file}`) || reasons(file).length === 0);
    expect(needless, 'not unit files that change what another would see').toEqual([]);
  });
});

describe('isolationScan', () => {
  it('finds each kind of change, in the file itself', () => {
    expect(reasons(fixture('mocks-a-module'))).toEqual([`${fixture('mocks-a-module')}: mocks a module`]);
    expect(reasons(fixture('dom-environment'))).toEqual([`${fixture('dom-environment')}: sets a test environment`]);
    expect(reasons(fixture('writes-env'))).toEqual([`${fixture('writes-env')}: writes process.env`]);
    expect(reasons(fixture('writes-global'))).toEqual([`${fixture('writes-global')}: writes globalThis`]);
    expect(reasons(fixture('patches-built-in'))).toEqual([`${fixture('patches-built-in')}: patches a built-in`]);
    expect(reasons(fixture('replaces-built-in'))).toEqual([`${fixture('replaces-built-in')}: patches a built-in`]);
    expect(reasons(fixture('needs-fresh-graph'))).toEqual([
      `${fixture('needs-fresh-graph')}: says it needs a fresh module graph`,
    ]);
  });

  it('finds a change made by a module the file imports, and state a module it imports keeps', () => {
    expect(reasons(fixture('through-a-helper'))).toEqual([
      `${fixture('helper-with-fake-timers')}: fakes timers or the clock`,
    ]);
    expect(reasons(fixture('imports-module-state'))).toEqual([
      `${fixture('module-with-state')}: holds module state (a top-level let or var)`,
    ]);
  });

  it('finds nothing in a file that only reads the environment and globals', () => {
    expect(reasons(fixture('reads-only'))).toEqual([]);
  });
});
