// The files that declare the longest timeouts start first (test/support/longest-first-sequencer.ts), so that the
// slowest scenarios are not the tail of a parallel run.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { longestDeclaredTimeout } from '../support/longest-first-sequencer.ts';

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
