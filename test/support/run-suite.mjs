// `npm test`'s last step: the unit project and the three browser projects as two Vitest runs side by side, not one
// after the other. One Vitest run keeps one worker limit per group of projects and runs its groups in turn, so the
// unit files (mostly waiting on servers, relay processes, redis-server and timers) used to hold up every browser file
// (bound by CPU) although they need little of it. Two runs give each its own limit: four unit files and two browser
// files at a time. Each run's lines are passed on whole, so the two never mix within a line; the exit code is the
// first failing run's, after both have finished, so one red run still shows the other's whole report.
// Arguments (`npm test -- test/unit/x.test.ts`) go to both runs; a run whose projects hold no such file passes.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const VITEST = new URL('../../node_modules/vitest/vitest.mjs', import.meta.url).pathname;
const filters = process.argv.slice(2);
const RUNS = [
  ['--project', 'unit'],
  ['--project', 'browser', '--project', 'firefox', '--project', 'webkit'],
];

/** One Vitest run; resolves with its exit code once it has ended and its output has been passed on. */
function run(projects) {
  const args = [VITEST, 'run', ...projects, ...(filters.length ? ['--passWithNoTests', ...filters] : [])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const passOn = (from, to) =>
    new Promise((resolve) =>
      createInterface({ input: from, crlfDelay: Infinity })
        .on('line', (line) => to.write(`${line}\n`))
        .on('close', resolve),
    );
  const output = Promise.all([passOn(child.stdout, process.stdout), passOn(child.stderr, process.stderr)]);
  return new Promise((resolve) =>
    child.on('close', (code, signal) => output.then(() => resolve(code ?? (signal ? 1 : 0)))),
  );
}

const codes = await Promise.all(RUNS.map(run));
process.exitCode = codes.find((code) => code !== 0) ?? 0;
