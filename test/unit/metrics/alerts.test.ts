// The example alert rules shipped in deploy/prometheus/: valid for Prometheus (`promtool check rules`) and doing what
// their unit tests say (`promtool test rules`: an instance with 10 % upstream errors alerts, a healthy one does not;
// refused credentials and a lost Redis alert after their `for`; a followed Redis failover alerts for 15 minutes on the
// instance that followed it; an instance down, slow upstream calls, refused live streams, an empty conversation
// upstream and lost creates no longer looked up alert, and their healthy counterparts do not).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { requirePromtool } from '../../support/promtool.ts';

const DIR = fileURLToPath(new URL('../../../deploy/prometheus/', import.meta.url));

const promtool = (...args: string[]) => {
  const run = spawnSync(requirePromtool(), args, { cwd: DIR, encoding: 'utf8', timeout: 20_000 });
  return { status: run.status, output: run.stdout + run.stderr };
};

it('the alert rules are valid', () => {
  const { status, output } = promtool('check', 'rules', 'alerts.yml');
  expect(output).toContain('SUCCESS: 12 rules found');
  expect(status).toBe(0);
});

it('the alert rules pass their unit tests', () => {
  const { status, output } = promtool('test', 'rules', 'alerts.test.yml');
  expect(output).toContain('SUCCESS');
  expect(status).toBe(0);
});
