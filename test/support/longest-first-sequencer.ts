// The order test files start in, when several run at once: the longest first, so that a slow scenario (a Dockerfile
// built step by step, relay processes failing over) starts while the short files fill the other workers, instead of
// starting last and running alone. Vitest's own order puts larger files first on a clean clone, which says little
// about time; a file's declared timeouts say what its author expects, so a file is ranked by the longest it declares.
// The files of one project run one after another, in the order the configuration lists the projects: Vitest keeps a
// worker that shares its module graph between files (isolate: false) only while the next file in the queue is of the
// same project, and otherwise ends it, so a queue that moved between Chromium's and Firefox's files started a new
// worker, imported the relay and playwright-core again and launched a new browser at every move.
// Asked to shuffle (`--sequence.shuffle`), it shuffles the files by the run's seed instead, as Vitest's own random
// sequencer would: a sequencer named in the configuration replaces that one, and the unit files that share a worker
// (vite.config.ts) are checked for depending on the files before them by running them in a shuffled order.
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

/** `items` in an order that only `seed` decides (Fisher–Yates, drawing from mulberry32): the same seed, the same order. */
export function shuffledBySeed<T>(items: readonly T[], seed: number): T[] {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const shuffled = [...items];
  for (let index = shuffled.length - 1; index > 0; index -= 1) {
    const other = Math.floor(next() * (index + 1));
    [shuffled[index], shuffled[other]] = [shuffled[other]!, shuffled[index]!];
  }
  return shuffled;
}

/**
 * `files` with each project's files together, projects in `projectOrder`, and within a project the longest declared
 * timeout first. Stable: files that declare the same (or no) timeout keep their order.
 */
export function byProjectThenLongest<T extends { project: { name: string } }>(
  files: readonly T[],
  projectOrder: readonly string[],
  longest: (file: T) => number,
): T[] {
  const rank = (file: T) => projectOrder.indexOf(file.project.name);
  return [...files].sort((a, b) => rank(a) - rank(b) || longest(b) - longest(a));
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
    const { shuffle, seed } = this.vitest.config.sequence;
    // Vitest sets a seed whenever it shuffles (the one it prints), so a shuffled order can be run again.
    if (shuffle) return shuffledBySeed(files, seed);
    const ordered = await (await this.base()).sort(files);
    const longest = new Map(ordered.map((file) => [file, longestDeclaredTimeout(readFileSync(file.moduleId, 'utf8'))]));
    return byProjectThenLongest(
      ordered,
      this.vitest.projects.map((project) => project.name),
      (file) => longest.get(file)!,
    );
  }
}
