// `npm test`'s last step: the unit project and the three browser projects as two Vitest runs side by side, not one
// after the other. One Vitest run keeps one worker limit per group of projects and runs its groups in turn, so the
// unit files (mostly waiting on servers, relay processes, redis-server and timers) used to hold up every browser file
// although they need little of the CPU. Two runs give each group its own limit (vite.config.ts).
// Each line is passed on whole and labelled with its run, so a failure's report can be told from the other run's
// progress; the exit code is the first failing run's, after both have finished, so one red run still shows the other's
// whole report. With arguments (`npm test -- test/unit/x.test.ts`, `npm test -- --project unit`) this is one Vitest run
// with those arguments, as `vitest run` would be: a filter that matches no file fails, and no file runs twice.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const VITEST = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url));
const args = process.argv.slice(2);
const RUNS = args.length
  ? [{ label: '', args }]
  : [
      { label: '[unit] ', args: ['--project', 'unit'] },
      { label: '[browser] ', args: ['--project', 'browser', '--project', 'firefox', '--project', 'webkit'] },
    ];
// Piped output is not a terminal to Vitest: keep its colours where ours is one.
const env = process.stdout.isTTY ? { ...process.env, FORCE_COLOR: '1' } : process.env;
const children = [];

/** The exit code a shell gives a process ended by `signal`. */
const signalCode = (signal) => 128 + (constants.signals[signal] ?? 0);

/** One Vitest run; resolves with its exit code once it has ended and its output has been passed on. */
function run({ label, args: runArgs }) {
  const child = spawn(process.execPath, [VITEST, 'run', ...runArgs], { stdio: ['ignore', 'pipe', 'pipe'], env });
  children.push(child);
  const passOn = (from, to) =>
    new Promise((resolve) =>
      createInterface({ input: from, crlfDelay: Infinity })
        .on('line', (line) => to.write(`${label}${line}\n`))
        .on('close', resolve),
    );
  const output = Promise.all([passOn(child.stdout, process.stdout), passOn(child.stderr, process.stderr)]);
  return new Promise((resolve) =>
    child.on('close', (code, signal) => output.then(() => resolve(signal ? signalCode(signal) : (code ?? 1)))),
  );
}

// Stopped from outside (a CI step's timeout, a closed terminal): pass the signal on to both runs and wait for them,
// rather than leave two Vitest runs going with no one reading their output. What a run's test files started
// themselves (a relay process, redis-server) is theirs to end; Vitest stopped by a signal does not always get to it.
let stoppedBy;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    stoppedBy ??= signal;
    for (const child of children) if (child.exitCode === null) child.kill(signal);
  });
}

const codes = await Promise.all(RUNS.map(run));
process.exitCode = stoppedBy ? signalCode(stoppedBy) : (codes.find((code) => code !== 0) ?? 0);
