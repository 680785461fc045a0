// A hung Redis (SIGSTOP: its connections stay open, nothing answers) must be visible: pwc_redis_up goes to 0 within
// 10 s, the RelayRedisUnreachable alert fires on the series so measured (promtool), and what Redis makes the relay
// refuse says so: `storage_unavailable` with a Redis cause in the answer, the log and the metrics, never an
// upstream code.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulatorServer } from '../../../src/simulator/server.ts';
import { bearer, MESSAGES } from '../../support/conversation-calls.ts';
import { freePort } from '../../support/free-port.ts';
import { requirePromtool } from '../../support/promtool.ts';
import { startRelayProcess, type RelayProcess } from '../../support/relay-process.ts';
import { startTestRedis, type TestRedis } from '../../support/redis-server.ts';

const HANDLE_SECRET = 'Hq3vR8tY2wK6yR0pL3sX9bN5cF7hJ1dG+eA2uT8oY4k=';
const ORIGIN = 'http://127.0.0.1:1';
const RULES = fileURLToPath(new URL('../../../deploy/prometheus/alerts.yml', import.meta.url));

let redis: TestRedis;
let upstream: Awaited<ReturnType<typeof startSimulatorServer>>;
let relay: RelayProcess;
let metricsUrl: string;

beforeAll(async () => {
  redis = await startTestRedis();
  upstream = await startSimulatorServer({ port: 0, botReplyDelayMs: 0, agentJoinDelayMs: 0 });
  const metricsPort = await freePort();
  metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  relay = await startRelayProcess({
    UPSTREAM_URL: upstream.url,
    UPSTREAM_USERNAME: upstream.simulator.seed.username,
    UPSTREAM_PASSWORD: upstream.simulator.seed.password,
    HANDLE_SECRET,
    PUBLIC_ORIGIN: ORIGIN,
    REDIS_URL: redis.url,
    METRICS_PORT: String(metricsPort),
  });
}, 40_000);
afterAll(async () => {
  redis?.signal('SIGCONT');
  await relay?.stop('SIGKILL');
  await Promise.all([upstream?.close(), redis?.close()]);
});

const headers = { Origin: ORIGIN, 'Content-Type': 'application/json' };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function metric(name: string): Promise<number | null> {
  const text = await (await fetch(metricsUrl)).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name} `));
  return line === undefined ? null : Number(line.split(' ')[1]);
}

it('SIGSTOP on Redis: pwc_redis_up is 0 within 10 s, the alert fires on it, and refusals carry the Redis cause', async () => {
  const created = await fetch(`${relay.url}/v1/conversations`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ client_id: 'demo-client' }),
  });
  expect(created.status).toBe(201);
  const { conversation } = (await created.json()) as { conversation: string };
  expect(await metric('pwc_redis_up')).toBe(1);
  const errorsOnAHealthyRedis = await metric('pwc_redis_command_errors_total');

  redis.signal('SIGSTOP');
  const stoppedAt = Date.now();
  // Scraped every 500 ms, as a fast Prometheus would; the samples feed the alert's unit test below.
  const samples: number[] = [];
  let downAfterMs: number | null = null;
  while (Date.now() - stoppedAt < 15_000) {
    const up = await metric('pwc_redis_up');
    samples.push(up ?? Number.NaN);
    if (up === 0 && downAfterMs === null) downAfterMs = Date.now() - stoppedAt;
    if (downAfterMs !== null && samples.length >= 4) break;
    await pause(500);
  }

  const send = await fetch(`${relay.url}${MESSAGES}`, {
    method: 'POST',
    headers: { ...headers, 'Idempotency-Key': 'hung-redis-key-1', ...bearer(conversation) },
    body: JSON.stringify({ text: 'Is Redis there?' }),
  });
  const sendBody = (await send.json()) as { error: { code: string } };
  const create = await fetch(`${relay.url}/v1/conversations`, {
    method: 'POST',
    headers: { ...headers, 'Idempotency-Key': '7c9e6679-7425-40de-944b-e07fc1f90ae7' },
    body: JSON.stringify({ client_id: 'demo-client' }),
  });
  const createBody = (await create.json()) as { error: { code: string } };
  const refusals = await metric('pwc_storage_refusals_total');
  // Log lines are written in small batches.
  await pause(300);
  const logLines = relay
    .output()
    .split('\n')
    .filter((line) => line.includes('"code":"storage_unavailable"'));
  console.log(
    `SIGSTOP on Redis: pwc_redis_up 0 after ${downAfterMs === null ? 'never (15 s)' : `${(downAfterMs / 1000).toFixed(1)} s`}; send ${send.status} ${sendBody.error.code}, create ${create.status} ${createBody.error.code}; pwc_storage_refusals_total ${refusals}; command errors on a healthy Redis ${errorsOnAHealthyRedis}`,
  );
  expect(errorsOnAHealthyRedis).toBe(0);
  expect(downAfterMs).not.toBeNull();
  expect(downAfterMs!).toBeLessThanOrEqual(10_000);
  expect([send.status, sendBody.error.code]).toEqual([503, 'storage_unavailable']);
  expect([create.status, createBody.error.code]).toEqual([503, 'storage_unavailable']);
  expect(send.headers.get('Retry-After')).not.toBeNull();
  expect(refusals).toBeGreaterThanOrEqual(2);
  expect(logLines.length, relay.output().slice(-3000)).toBeGreaterThanOrEqual(2);
  expect(
    logLines.every(
      (line) => /"cause":"redis_(unreachable|command_failed)"/.test(line) && line.includes('"level":"warn"'),
    ),
  ).toBe(true);

  // The shipped alert, on the series as measured, its last value held (Redis stays stopped) past the rule's `for`.
  const dir = mkdtempSync(join(tmpdir(), 'pwc-redis-alert-'));
  copyFileSync(RULES, join(dir, 'alerts.yml'));
  const seen = samples.map((value) => (Number.isNaN(value) ? '_' : String(value))).join(' ');
  writeFileSync(
    join(dir, 'measured.test.yml'),
    [
      'rule_files: [alerts.yml]',
      'evaluation_interval: 30s',
      'tests:',
      '  - interval: 30s',
      '    input_series:',
      `      - series: 'pwc_redis_up{instance="relay-1"}'`,
      `        values: '${seen} ${samples.at(-1)}x6'`,
      '    alert_rule_test:',
      `      - eval_time: ${(samples.length + 4) * 30}s`,
      '        alertname: RelayRedisUnreachable',
      '        exp_alerts:',
      '          - exp_labels: { severity: critical, instance: relay-1 }',
      '            exp_annotations:',
      '              summary: "relay-1 cannot reach Redis"',
      '              description: "Sends and creates are refused with Retry-After and quotas are not enforced until Redis is back."',
      '',
    ].join('\n'),
  );
  const run = spawnSync(requirePromtool(), ['test', 'rules', 'measured.test.yml'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(run.stdout + run.stderr).toContain('SUCCESS');
}, 90_000);
