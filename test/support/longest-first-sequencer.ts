// The order test files start in, when several run at once: the longest first, so that a slow scenario (a Dockerfile
// built step by step, every language's frame page drawn at every size) starts while the short files fill the other workers,
// instead of starting last and running alone. Vitest's own order puts larger files first on a clean clone, which says
// little about time. A file is ranked by the seconds it took in a measured run (file-seconds.json, written by
// record-file-seconds.mjs from a Vitest JSON report); a file that run did not see, by the longest timeout it
// declares, which says what its author expects.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { TestSequencer, TestSpecification, Vitest } from 'vitest/node';

// A timeout as the tests write it: `{ timeout: 60_000 }`, or the last argument of it(), beforeAll() or it.each()().
const DECLARED_TIMEOUT = /(?:timeout:\s*|\},\s*|,\s*)(\d{1,3}(?:_\d{3})+|\d{4,6})\)?/g;

/** The longest timeout a test file declares, in milliseconds; 0 when it declares none of 5 s or more. */
export function longestDeclaredTimeout(source: string): number {
  let longest = 0;
  for (const [, digits] of source.matchAll(DECLARED_TIMEOUT)) {
    const ms = Number(digits!.replaceAll('_', ''));
    if (ms >= 5_000 && ms > longest) longest = ms;
  }
  return longest;
}

/** Seconds each file took in the measured run, keyed `project:path` (a file runs in several browser projects). */
export type FileSeconds = Record<string, number>;

// Read when tests are sorted, not when vite.config.ts is read (`vite build` reads it too).
let measuredRun: FileSeconds | undefined;
const measuredSeconds = (): FileSeconds =>
  (measuredRun ??= JSON.parse(readFileSync(new URL('./file-seconds.json', import.meta.url), 'utf8')));

/** How long a file is expected to take, in seconds: as measured, else the longest it declares it may. */
export function expectedSeconds(key: string, source: string, measured: FileSeconds = measuredSeconds()): number {
  return measured[key] ?? longestDeclaredTimeout(source) / 1_000;
}

// Vitest's own sequencer is imported when tests are sorted, not when vite.config.ts is read: `vite build` reads it too.
export class LongestFirstSequencer implements TestSequencer {
  constructor(private readonly vitest: Vitest) {}

  private async base(): Promise<TestSequencer> {
    const { BaseSequencer } = await import('vitest/node');
    return new BaseSequencer(this.vitest);
  }

  async shard(files: TestSpecification[]): Promise<TestSpecification[]> {
    return (await this.base()).shard(files);
  }

  async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await (await this.base()).sort(files);
    const root = this.vitest.config.root;
    const expected = new Map(
      ordered.map((file) => [
        file,
        expectedSeconds(`${file.project.name}:${relative(root, file.moduleId)}`, readFileSync(file.moduleId, 'utf8')),
      ]),
    );
    // Stable: files expected to take as long keep Vitest's order.
    return ordered.sort((a, b) => expected.get(b)! - expected.get(a)!);
  }
}
