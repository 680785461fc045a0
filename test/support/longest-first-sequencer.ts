// The order test files start in, when several run at once: the longest first, so that a slow scenario (a Dockerfile
// built step by step, relay processes failing over) starts while the short files fill the other workers, instead of
// starting last and running alone. Vitest's own order puts larger files first on a clean clone, which says little
// about time; a file's declared timeouts say what its author expects, so a file is ranked by the longest it declares.
import { readFileSync } from 'node:fs';
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
    const longest = new Map(ordered.map((file) => [file, longestDeclaredTimeout(readFileSync(file.moduleId, 'utf8'))]));
    // Stable: files that declare the same (or no) timeout keep Vitest's order.
    return ordered.sort((a, b) => longest.get(b)! - longest.get(a)!);
  }
}
