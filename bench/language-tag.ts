// What a hostile language pick costs the practice's page: the loader's languageTag on a stored value built to make a
// backtracking pattern try every way of reading a run of underscores, against the pattern it replaced on the same
// kind of value. Node's V8 runs the same regular expression engine as Chromium's.
//
//   npx tsx bench/language-tag.ts
//
// The replaced pattern is timed at growing lengths until one call takes over a second (each underscore more multiplies
// the time, so it is never run on the 75-character value itself).
import { languageTag } from '../src/shared/language-tag.ts';

const REPLACED = /^[a-z]{2,3}([-_]\w{2,8})*$/i;
const hostile = (length: number) => `en${'_'.repeat(length - 3)}!`;

/** Per-call times in microseconds, sorted. */
function timings(run: () => unknown, calls: number): number[] {
  const samples: number[] = [];
  for (let call = 0; call < calls; call++) {
    const before = performance.now();
    run();
    samples.push((performance.now() - before) * 1000);
  }
  return samples.sort((a, b) => a - b);
}

const at = (sorted: number[], quantile: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * quantile))]!;

// The page calls it once per load, the first time the pattern is used: that call includes compiling it.
const [first] = timings(() => languageTag(hostile(75)), 1);
const rows = [
  '| input | function | calls | median | 99th percentile |',
  '| --- | --- | --- | --- | --- |',
  `| hostile pick, 75 characters, first call in the process | languageTag | 1 | ${first!.toFixed(1)} µs | |`,
];
for (const [name, value] of [
  ['hostile pick, 75 characters', hostile(75)],
  ['hostile pick, 35 characters (the limit)', hostile(35)],
  ['hostile pick, 100,000 characters', hostile(100_000)],
  ['an array of the 75-character pick', [hostile(75)]],
  ['a real tag, zh-Hant-TW', 'zh-Hant-TW'],
] as const) {
  const sorted = timings(() => languageTag(value), 100_000);
  rows.push(
    `| ${name} | languageTag | 100000 | ${at(sorted, 0.5).toFixed(2)} µs | ${at(sorted, 0.99).toFixed(2)} µs |`,
  );
}
for (let length = 30; ; length += 3) {
  const [once] = timings(() => REPLACED.test(hostile(length)), 1);
  rows.push(`| hostile pick, ${length} characters | replaced pattern | 1 | ${(once! / 1000).toFixed(1)} ms | |`);
  if (once! > 1_000_000) break;
}
console.log(rows.join('\n'));
