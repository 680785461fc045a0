// The files that declare the longest timeouts start first (test/support/longest-first-sequencer.ts), so that the
// slowest scenarios are not the tail of a parallel run.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import {
  byProjectThenLongest,
  LongestFirstSequencer,
  longestDeclaredTimeout,
  shuffledBySeed,
} from '../support/longest-first-sequencer.ts';

const read = (path: string) => readFileSync(fileURLToPath(new URL(path, import.meta.url)), 'utf8');

describe('longestDeclaredTimeout', () => {
  it('reads the timeouts tests declare, in every way they write them', () => {
    expect(longestDeclaredTimeout("it('a', async () => {}, 300_000);")).toBe(300_000);
    expect(longestDeclaredTimeout("describe('a', { timeout: 60_000 }, () => {});")).toBe(60_000);
    expect(longestDeclaredTimeout('beforeAll(async () => {\n  await start();\n}, 30000);')).toBe(30_000);
    expect(longestDeclaredTimeout("it.each([1, 2])('%i', async () => {},\n  150_000,\n);")).toBe(150_000);
  });

  it('takes the longest, and counts nothing under 5 s', () => {
    expect(longestDeclaredTimeout("it('a', () => {}, 20_000);\nit('b', () => {}, 90_000);")).toBe(90_000);
    expect(longestDeclaredTimeout("await waitFor(ready, 'x', 1_000);\nit('a', () => {});")).toBe(0);
  });

  it('ranks the Dockerfile built step by step above a file of pure functions', () => {
    expect(longestDeclaredTimeout(read('./deploy/dockerfile-steps.test.ts'))).toBeGreaterThan(
      longestDeclaredTimeout(read('./shared/domains.test.ts')),
    );
  });
});

describe('byProjectThenLongest', () => {
  // Vitest ends a worker that shares its module graph when the next file in the queue is of another project.
  it("keeps each project's files together, in the projects' order, the longest first within each", () => {
    const file = (name: string, project: string, timeout: number) => ({ name, project: { name: project }, timeout });
    const files = [
      file('chromium-short', 'browser', 0),
      file('firefox-long', 'firefox', 60_000),
      file('chromium-long', 'browser', 240_000),
      file('webkit', 'webkit', 30_000),
      file('firefox-short', 'firefox', 0),
      file('chromium-middle', 'browser', 30_000),
      file('chromium-also-middle', 'browser', 30_000),
    ];
    const ordered = byProjectThenLongest(files, ['browser', 'firefox', 'webkit'], ({ timeout }) => timeout);
    expect(ordered.map(({ name }) => name)).toEqual([
      'chromium-long',
      'chromium-middle',
      'chromium-also-middle',
      'chromium-short',
      'firefox-long',
      'firefox-short',
      'webkit',
    ]);
  });
});

describe('a shuffled run', () => {
  const files = Array.from({ length: 20 }, (_, index) => `test/unit/file-${index}.test.ts`);

  it('orders the files by the seed alone: the same seed gives the same order, another seed another', () => {
    const once = shuffledBySeed(files, 1_764_370_000_000);
    expect(shuffledBySeed(files, 1_764_370_000_000)).toEqual(once);
    expect([...once].sort()).toEqual([...files].sort());
    expect(once).not.toEqual(files);
    expect(shuffledBySeed(files, 42)).not.toEqual(once);
  });

  // What the sequencer reads of the run: its sequence settings as Vitest resolved them for `--sequence.shuffle`.
  it('shuffles the files themselves when the run is shuffled, not only the tests in each', async () => {
    const run = { config: { sequence: { shuffle: true, seed: 42 } } } as unknown as Vitest;
    const specifications = files.map((moduleId) => ({ moduleId }) as TestSpecification);
    const sorted = await new LongestFirstSequencer(run).sort(specifications);
    expect(sorted.map(({ moduleId }) => moduleId)).toEqual(shuffledBySeed(files, 42));
  });
});
