// `npm run bench:relay`: what the relay costs per request, against the floor (a bare keep-alive proxy hop to the same
// upstream read, bench/floor-proxy.mjs) and the simulator answered directly. Each runs in its own process, as in
// production; the three are measured interleaved, round after round, at 1, 10 and 100 connections, so a noisy
// neighbour on the machine hits all of them alike. Bounded: ROUNDS × 3 levels × 3 targets × SECONDS.
//
// Environment: BENCH_SECONDS (default 4), BENCH_ROUNDS (default 3), BENCH_CPU_PROF=DIR (write the relay's CPU
// profile there; with BENCH_ONLY_RELAY=1 only the relay is loaded, so the profile's idle share means something).
// Needs `npm run build` and `npm run build:simulator` (the script runs both first).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { mkdtempSync, openSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const LEVELS = process.env.BENCH_LEVELS ? process.env.BENCH_LEVELS.split(',').map(Number) : [1, 10, 100];
const PROFILE_DIR = process.env.BENCH_CPU_PROF;
const root = new URL('..', import.meta.url);
const serverJs = new URL('dist-server/server.js', root).pathname;
const simulatorJs = new URL('dist-simulator/simulator.js', root).pathname;
if (!existsSync(serverJs)) throw new Error('dist-server/server.js is missing: run `npm run build` first.');
if (!existsSync(simulatorJs))
  throw new Error('dist-simulator/simulator.js is missing: run `npm run build:simulator` first.');

const logDir = mkdtempSync(join(tmpdir(), 'bench-relay-'));
const children = [];

/** Starts a process whose output goes to a file (as a journal would take it), and waits for its URL line. */
/** A loopback port that was free a moment ago. */
async function freePort() {
  const probe = createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function start(name, args, env = {}, pattern = /listening on (http:\/\/\S+)/i) {
  const logPath = join(logDir, `${name}.log`);
  const out = openSync(logPath, 'w');
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', out, out] });
  children.push(child);
  for (let waited = 0; waited < 20_000; waited += 50) {
    const match = pattern.exec(readFileSync(logPath, 'utf8'));
    if (match) return { child, url: match[1] };
    if (child.exitCode !== null) break;
    await sleep(50);
  }
  throw new Error(`${name} did not start; see ${logPath}`);
}

function stopAll() {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
}
process.on('exit', stopAll);

/** CPU time (user + system) a process has used so far, in ms: per request it is a cost that noise on a shared
 * machine barely moves, unlike req/s. */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

function rssMb(pid) {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

async function json(url, init) {
  const response = await fetch(url, init);
  if (!response.ok) throw new Error(`${init?.method ?? 'GET'} ${new URL(url).pathname} answered ${response.status}`);
  return response.json();
}

// The upstream, then the relay pointed at it with the settings `npm run serve` reads; quotas opened up so that the
// bench measures the hot path, not the rate limiter's refusals. A second relay, identical but for
// STATUS_REFRESH_SECONDS=0, reads the conversation's status on every poll (as the relay did before it reused
// readings): the same run shows what that reuse is worth, and what a poll costs when it does need the status.
const simulator = await start('simulator', [simulatorJs, '--port', '0']);
const username = 'demo@practice.example';
const password = 'demo-password';
const handleSecret = randomBytes(32).toString('base64'); // shared, as by instances behind one load balancer
async function startRelay(name, extraEnvironment = {}, profile = false) {
  // As in production (NODE_ENV=production, which needs PUBLIC_ORIGIN, so the port is chosen up front).
  const port = await freePort();
  return start(
    name,
    [...(profile ? ['--cpu-prof', '--cpu-prof-dir', PROFILE_DIR] : []), serverJs],
    {
      NODE_ENV: 'production',
      PORT: String(port),
      PUBLIC_ORIGIN: `http://127.0.0.1:${port}`,
      HOST: '127.0.0.1',
      UPSTREAM_URL: simulator.url,
      UPSTREAM_USERNAME: username,
      UPSTREAM_PASSWORD: password,
      HANDLE_SECRET: handleSecret,
      REQUESTS_PER_MINUTE_PER_IP: '1000000',
      ...extraEnvironment,
    },
    /Relay listening on (http:\/\/[^\s"]+)/,
  );
}
const relay = await startRelay('relay', {}, Boolean(PROFILE_DIR));
const relayEveryPoll = await startRelay('relay-every-poll', { STATUS_REFRESH_SECONDS: '0' });

// One conversation through the relay (what a browser reads), one straight upstream (what the floor and the direct
// runs read), each with one visitor message and the bot's answer.
const created = await json(`${relay.url}/v1/conversations`, {
  method: 'POST',
  headers: { Origin: relay.url, 'Content-Type': 'application/json' },
  body: JSON.stringify({ client_id: 'demo-client' }),
});
// Calls on the conversation carry its handle in Authorization, never in the URL.
const withHandle = { Authorization: `Bearer ${created.conversation}` };
await json(`${relay.url}/v1/conversation/messages`, {
  method: 'POST',
  headers: {
    Origin: relay.url,
    'Content-Type': 'application/json',
    'Idempotency-Key': 'bench-key-0001',
    ...withHandle,
  },
  body: JSON.stringify({ text: 'What are your opening hours?' }),
});
const token = (
  await json(`${simulator.url}/api/oauth/token/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username, password, grant_type: 'password' }),
  })
).access_token;
const auth = { Authorization: `Bearer ${token}`, Accept: 'application/json' };
const conversation = await json(`${simulator.url}/api/conversations/`, {
  method: 'POST',
  headers: { ...auth, 'Content-Type': 'application/json' },
  body: JSON.stringify({ practice: 'prc_3fa81d2c', channel: 'webchat' }),
});
await json(`${simulator.url}/api/conversations/${conversation.id}/messages/`, {
  method: 'POST',
  headers: { ...auth, 'Content-Type': 'application/json' },
  body: JSON.stringify({ text: 'What are your opening hours?', sender: 'visitor' }),
});
const floor = await start('floor', [
  new URL('floor-proxy.mjs', import.meta.url).pathname,
  simulator.url,
  token,
  conversation.id,
]);
await sleep(1500); // the simulated bot answers after a short delay

const poll = '/v1/conversation/messages?after=0';
const targets = [
  { name: 'relay', url: `${relay.url}${poll}`, headers: { 'X-Practice-Chat': '1', ...withHandle } },
  {
    name: 'relay, status every poll',
    url: `${relayEveryPoll.url}${poll}`,
    headers: { 'X-Practice-Chat': '1', ...withHandle },
  },
  { name: 'floor', url: `${floor.url}/`, headers: {} },
  { name: 'simulator', url: `${simulator.url}/api/conversations/${conversation.id}/messages/?after=0`, headers: auth },
];

function load(target, connections, seconds) {
  return autocannon({ url: target.url, headers: target.headers, connections, duration: seconds, pipelining: 1 });
}

// Warm every path (JIT, connection pools, the relay's token) before anything counts.
for (const target of targets) await load(target, 10, 1);
const idleRss = rssMb(relay.child.pid);

// The CPU a target's own process spends (the simulator's answers are counted in the simulator's column).
const processOf = {
  relay: relay.child,
  'relay, status every poll': relayEveryPoll.child,
  floor: floor.child,
  simulator: simulator.child,
};
const cpuOf = (target) => cpuMs(processOf[target.name].pid);
const measured = process.env.BENCH_ONLY_RELAY ? targets.slice(0, 1) : targets;
const runs = new Map(); // `${name}@${connections}` → results
let loadRss = 0;
for (let round = 0; round < ROUNDS; round++) {
  for (const connections of LEVELS) {
    for (const target of measured) {
      const sampler =
        target.name === 'relay' ? setInterval(() => (loadRss = Math.max(loadRss, rssMb(relay.child.pid))), 250) : null;
      const cpuBefore = cpuOf(target);
      const upstreamCpuBefore = cpuMs(simulator.child.pid);
      const result = await load(target, connections, SECONDS);
      result.cpuPerRequestMs = (cpuOf(target) - cpuBefore) / Math.max(result.requests.total, 1);
      // What the same requests cost the upstream (the simulator's CPU): one status read per poll shows here.
      result.upstreamCpuPerRequestMs =
        (cpuMs(simulator.child.pid) - upstreamCpuBefore) / Math.max(result.requests.total, 1);
      if (sampler) clearInterval(sampler);
      if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
        throw new Error(
          `${target.name} at ${connections} connections: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`,
        );
      }
      const key = `${target.name}@${connections}`;
      runs.set(key, [...(runs.get(key) ?? []), result]);
      process.stderr.write(
        `round ${round + 1} ${key}: ${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms, ${(1000 * result.cpuPerRequestMs).toFixed(0)} µs CPU/request, upstream ${(1000 * result.upstreamCpuPerRequestMs).toFixed(0)} µs\n`,
      );
    }
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const summary = (name, connections) => {
  const results = runs.get(`${name}@${connections}`);
  return {
    rps: median(results.map((r) => r.requests.average)),
    p50: median(results.map((r) => r.latency.p50)),
    p99: median(results.map((r) => r.latency.p99)),
    cpuUs: median(results.map((r) => 1000 * r.cpuPerRequestMs)),
    upstreamCpuUs: median(results.map((r) => 1000 * r.upstreamCpuPerRequestMs)),
  };
};

const lines = [
  `Relay bench: ${ROUNDS} interleaved rounds × ${SECONDS} s per target and level (medians); GET messages?after=0.`,
  '',
  '| connections | target | req/s | p50 ms | p99 ms | own CPU µs/request | upstream CPU µs/request | relay/floor req/s | relay p99 / floor p99 |',
  '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
];
let verdict = null; // null: the floor was not measured (BENCH_ONLY_RELAY), so there is nothing to compare with
for (const connections of measured.length === targets.length ? LEVELS : []) {
  const relayRow = summary('relay', connections);
  const floorRow = summary('floor', connections);
  for (const { name } of targets) {
    const row = summary(name, connections);
    const ratios = name.startsWith('relay')
      ? `${Math.round((100 * row.rps) / floorRow.rps)} % | ${(row.p99 / Math.max(floorRow.p99, 1)).toFixed(2)}×`
      : ' | ';
    lines.push(
      `| ${connections} | ${name} | ${Math.round(row.rps)} | ${row.p50} | ${row.p99} | ${Math.round(row.cpuUs)} | ${Math.round(row.upstreamCpuUs)} | ${ratios} |`,
    );
  }
  if (connections === 100)
    verdict = relayRow.rps >= 0.5 * floorRow.rps && relayRow.p99 <= 4 * Math.max(floorRow.p99, 1);
}
lines.push('', `Relay resident memory: ${idleRss.toFixed(0)} MB idle, ${loadRss.toFixed(0)} MB at most under load.`);
lines.push(
  `Goal at 100 connections (≥ 50 % of the floor's req/s, p99 ≤ 4× the floor's): ${verdict === null ? 'not measured (no floor in this run)' : verdict ? 'met' : 'NOT met'}.`,
);
console.log(lines.join('\n'));

stopAll();
await sleep(PROFILE_DIR ? 1500 : 100); // the relay writes its CPU profile as it exits
process.exit(verdict === false ? 1 : 0);
