// The benches are tools beside the tests, not part of them: what both need (launching Chromium as users have it,
// serving host pages, a free port) lives in tools/, and nothing under bench/ reaches into test/.
import { readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

const BENCH = new URL('../../bench/', import.meta.url);

it('no bench file imports from test/', () => {
  const reaching = readdirSync(BENCH)
    .filter((name) => /\.(ts|mjs|js)$/.test(name))
    .flatMap((name) =>
      [...readFileSync(new URL(name, BENCH), 'utf8').matchAll(/(?:from|import\()\s*['"]([^'"]+)['"]/g)]
        .map((match) => match[1]!)
        .filter((path) => /(^|\/)test\//.test(path))
        .map((path) => `${name}: ${path}`),
    );
  expect(reaching).toEqual([]);
});
