// Reads a V8 CPU profile (`node --cpu-prof`, or BENCH_CPU_PROF with bench/relay.mjs) and prints where the time went:
// self time summed by function (or by file), the top N, as shares of the busy (non-idle) time.
// Usage: node bench/cpu-profile-top.mjs FILE.cpuprofile [N=30] [--by-file] [--after=SECONDS] [--before=SECONDS]
//   --after: only samples taken that long after the profile began (skips start-up and warm-up);
//   --before: only samples taken before then (skips the shutdown's resets, or keeps one target's window of a run).
import { readFileSync } from 'node:fs';

const flags = process.argv.slice(2).filter((argument) => argument.startsWith('--'));
const [file, count] = process.argv.slice(2).filter((argument) => !argument.startsWith('--'));
if (!file)
  throw new Error(
    'usage: node bench/cpu-profile-top.mjs FILE.cpuprofile [N] [--by-file] [--after=SECONDS] [--before=SECONDS]',
  );
const top = Number(count ?? 30);
const byFile = flags.includes('--by-file');
const seconds = (name, fallback) =>
  Number(flags.find((flag) => flag.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);
const afterMicros = 1e6 * seconds('after', 0);
const beforeMicros = 1e6 * seconds('before', Infinity);
const profile = JSON.parse(readFileSync(file, 'utf8'));

// Each sample names the node that was on top of the stack; the time delta before it is its time.
const selfMicros = new Map();
let elapsed = 0;
profile.samples.forEach((nodeId, index) => {
  const delta = profile.timeDeltas[index] ?? 0;
  elapsed += delta;
  if (elapsed >= afterMicros && elapsed < beforeMicros) selfMicros.set(nodeId, (selfMicros.get(nodeId) ?? 0) + delta);
});

const shortUrl = (url) =>
  url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\//, 'nm:')
    .replace(/^.*\/dist-server\//, 'dist:');
const totals = new Map();
let idle = 0;
let all = 0;
for (const node of profile.nodes) {
  const micros = selfMicros.get(node.id) ?? 0;
  all += micros;
  const { functionName, url, lineNumber } = node.callFrame;
  if (functionName === '(idle)') {
    idle += micros;
    continue;
  }
  const name = byFile
    ? shortUrl(url) || functionName
    : `${functionName || '(anonymous)'} ${shortUrl(url)}:${lineNumber + 1}`;
  totals.set(name, (totals.get(name) ?? 0) + micros);
}
const busy = all - idle;
console.log(
  `busy ${(busy / 1000).toFixed(0)} ms of ${(all / 1000).toFixed(0)} ms (idle ${((100 * idle) / all).toFixed(1)} %)`,
);
for (const [name, micros] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`${((100 * micros) / busy).toFixed(1).padStart(5)} %  ${name}`);
}
