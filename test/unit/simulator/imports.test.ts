// The simulator is the other side of the wire: it implements the upstream contract on its own and imports nothing
// from the relay (nor from the panel or the loader), so a change to the relay's contract module cannot silently
// change the stand-in it is tested against.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const simulatorDir = fileURLToPath(new URL('../../../src/simulator/', import.meta.url));
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

it('imports nothing from src/relay, src/frame or src/loader', () => {
  const files = sourcesUnder(simulatorDir);
  expect(files.length).toBeGreaterThan(10);
  const reaching = files.flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(IMPORT)]
      .map((match) => match[1] ?? match[2] ?? '')
      .filter((specifier) => /(^|\/)(relay|frame|loader)\//.test(specifier))
      .map((specifier) => `${file.slice(simulatorDir.length)} → ${specifier}`),
  );
  expect(reaching).toEqual([]);
});
