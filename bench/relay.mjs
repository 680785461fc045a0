// `npm run bench:relay`: what the relay costs per request, against the floor (a bare keep-alive proxy hop to the same
// upstream call, bench/floor-proxy.mjs) and the simulator answered directly. Two calls, each through the relay with
// in-memory stores (one instance) and with Redis (REDIS_URL, as instances behind a load balancer run):
//   poll: GET /v1/conversation/messages?after=0, the call every open panel makes;
//   send: POST /v1/conversation/messages, a new Idempotency-Key each time (every send is a first attempt).
// Each process runs on its own, as in production; every target is measured interleaved, round after round, at 1, 10
// and 100 connections, so a noisy neighbour on the machine hits all of them alike. Bounded: ROUNDS × levels × targets
// × SECONDS.
//
// Environment: BENCH_SECONDS (default 4), BENCH_ROUNDS (default 3), BENCH_LEVELS (default 1,10,100), BENCH_ONLY=REGEX
// (measure only the targets whose name matches; BENCH_ONLY_RELAY=1 is BENCH_ONLY='^relay$'), BENCH_CPU_PROF=DIR (write
// the CPU profile of each relay, the floor and the simulator there, named by process id; read one with
// bench/cpu-profile-top.mjs), BENCH_RELAY_JS=FILE (another build of the relay in place of dist-server/server.js: an
// earlier commit's), BENCH_BASELINE_JS=FILE (an earlier build measured beside this one, in the same rounds, as the
// "baseline" rows: a before and after on the same machine; the copy must sit inside this repository, e.g.
// dist-base/server.js, or its imports do not find node_modules and it does not start), BENCH_UPSTREAM_CONNECTIONS=N
// (default 64: every relay's UPSTREAM_CONNECTIONS and the floor's sockets alike, so neither queues less), BENCH_RATE=N (every target
// sent N requests a second in all, instead of as many as it answers: on a machine busy with other work, req/s moves
// with the neighbours and a relay answering fewer requests also batches fewer per turn of its event loop, so before
// and after compare best by own CPU per request at the same rate; the goal is then not judged). Needs `npm run build` and
// `npm run build:simulator` (the script runs both first), and redis-server (REDIS_SERVER_PATH, else
// /usr/bin/redis-server).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { mkdtempSync, openSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';

/**
 * A whole number of at least 1 from the environment, or the fallback when unset. A typo (`BENCH_RATE=1e3x`, `0`)
 * would otherwise become NaN or 0 and turn a run's figures into nonsense without a word, after minutes of load.
 */
function wholeSetting(name, value, fallback) {
  if (value === undefined || value === '') return fallback;
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < 1) {
    console.error(`${name}=${JSON.stringify(value)}: expected a whole number of at least 1.`);
    process.exit(2);
  }
  return number;
}

const SECONDS = wholeSetting('BENCH_SECONDS', process.env.BENCH_SECONDS, 4);
const ROUNDS = wholeSetting('BENCH_ROUNDS', process.env.BENCH_ROUNDS, 3);
const LEVELS = process.env.BENCH_LEVELS
  ? process.env.BENCH_LEVELS.split(',').map((level) => wholeSetting('BENCH_LEVELS', level))
  : [1, 10, 100];
const ONLY = process.env.BENCH_ONLY_RELAY
  ? /^relay$/
  : process.env.BENCH_ONLY
    ? new RegExp(process.env.BENCH_ONLY)
    : null;
const PROFILE_DIR = process.env.BENCH_CPU_PROF;
const BASELINE_JS = process.env.BENCH_BASELINE_JS;
const RATE = wholeSetting('BENCH_RATE', process.env.BENCH_RATE, null);
const UPSTREAM_CONNECTIONS = String(
  wholeSetting('BENCH_UPSTREAM_CONNECTIONS', process.env.BENCH_UPSTREAM_CONNECTIONS, 64),
);
/** At 100 connections, for each call in each mode: at least this share of the floor's req/s, a p99 at most this many times its. */
const GOAL = { share: 0.75, p99Times: 2 };
const root = new URL('..', import.meta.url);
const serverJs = process.env.BENCH_RELAY_JS ?? new URL('dist-server/server.js', root).pathname;
const simulatorJs = new URL('dist-simulator/simulator.js', root).pathname;
const redisServer = process.env.REDIS_SERVER_PATH || '/usr/bin/redis-server';
if (!existsSync(serverJs)) throw new Error('dist-server/server.js is missing: run `npm run build` first.');
if (!existsSync(simulatorJs))
  throw new Error('dist-simulator/simulator.js is missing: run `npm run build:simulator` first.');
if (!existsSync(redisServer)) throw new Error(`redis-server is missing (${redisServer}): set REDIS_SERVER_PATH.`);

const logDir = mkdtempSync(join(tmpdir(), 'bench-relay-'));
const children = [];

/** A loopback port that was free a moment ago. */
async function freePort() {
  const probe = createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Starts a process whose output goes to a file (as a journal would take it), and waits for `pattern` in it. */
async function start(name, command, args, env = {}, pattern = /listening on (http:\/\/\S+)/i) {
  const logPath = join(logDir, `${name}.log`);
  const out = openSync(logPath, 'w');
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', out, out] });
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

/** Read and write system calls a process has made so far (/proc/PID/io): a count that noise cannot move, and on a
 * loopback machine each socket write is among the dearest things a request does. */
function syscalls(pid) {
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  const count = (name) => Number(new RegExp(`^${name}: (\\d+)`, 'm').exec(io)?.[1] ?? NaN);
  return count('syscr') + count('syscw');
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

// The upstream, a Redis without persistence (what is measured is the relay's work, not the disk's), then the relays
// pointed at them with the settings `npm run serve` reads; quotas opened up so that the bench measures the hot paths,
// not the rate limiter's refusals. "relay, status every poll" is identical to "relay" but for
// STATUS_REFRESH_SECONDS=0: it reads the conversation's status on every poll (as the relay did before it reused
// readings), so the same run shows what that reuse is worth.
const profiled = PROFILE_DIR ? ['--cpu-prof', '--cpu-prof-dir', PROFILE_DIR] : [];
const simulator = await start('simulator', process.execPath, [...profiled, simulatorJs, '--port', '0']);
if (PROFILE_DIR) process.stderr.write(`simulator: process ${simulator.child.pid}\n`);
const redisPort = await freePort();
const redis = await start(
  'redis',
  redisServer,
  ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', logDir],
  {},
  /(Ready to accept connections)/,
);
const username = 'demo@practice.example';
const password = 'demo-password';
const handleSecret = randomBytes(32).toString('base64'); // shared, as by instances behind one load balancer
async function startRelay(name, extraEnvironment = {}, script = serverJs) {
  // As in production (NODE_ENV=production, which needs PUBLIC_ORIGIN, so the port is chosen up front).
  const port = await freePort();
  const relay = await start(
    name,
    process.execPath,
    [...profiled, script],
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
      MESSAGES_PER_MINUTE_PER_CONVERSATION: '1000000',
      UPSTREAM_CONNECTIONS,
      ...extraEnvironment,
    },
    /Relay listening on (http:\/\/[^\s"]+)/,
  );
  if (PROFILE_DIR) process.stderr.write(`${name}: process ${relay.child.pid}\n`);
  return relay;
}
const redisUrl = `redis://127.0.0.1:${redisPort}`;
const relay = await startRelay('relay');
const relayRedis = await startRelay('relay-redis', { REDIS_URL: redisUrl });
// With BENCH_BASELINE_JS, an earlier build runs beside this one (its own processes, the same upstream and Redis) and
// is measured in the same rounds: a before and after that the machine's noise hits alike.
const baseline = BASELINE_JS
  ? {
      relay: await startRelay('baseline', {}, BASELINE_JS),
      relayRedis: await startRelay('baseline-redis', { REDIS_URL: redisUrl }, BASELINE_JS),
    }
  : null;
const relayEveryPoll = await startRelay('relay-every-poll', { STATUS_REFRESH_SECONDS: '0' });

const QUESTION = 'What are your opening hours?';
/** A conversation through a relay (what a browser holds: its handle), with one visitor message and the bot's answer. */
async function relayConversation(relayUrl) {
  const created = await json(`${relayUrl}/v1/conversations`, {
    method: 'POST',
    headers: { Origin: relayUrl, 'Content-Type': 'application/json' },
    body: JSON.stringify({ client_id: 'demo-client' }),
  });
  // Calls on the conversation carry its handle in Authorization, never in the URL.
  const withHandle = { Authorization: `Bearer ${created.conversation}` };
  await json(`${relayUrl}/v1/conversation/messages`, {
    method: 'POST',
    headers: {
      Origin: relayUrl,
      'Content-Type': 'application/json',
      'Idempotency-Key': 'bench-key-0001',
      ...withHandle,
    },
    body: JSON.stringify({ text: QUESTION }),
  });
  return withHandle;
}
// The same straight upstream, for the floor and the direct runs.
const token = (
  await json(`${simulator.url}/api/oauth/token/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username, password, grant_type: 'password' }),
  })
).access_token;
const auth = { Authorization: `Bearer ${token}`, Accept: 'application/json' };
async function upstreamConversation() {
  const conversation = await json(`${simulator.url}/api/conversations/`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ practice: 'prc_3fa81d2c', channel: 'webchat' }),
  });
  await json(`${simulator.url}/api/conversations/${conversation.id}/messages/`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ text: QUESTION, sender: 'visitor' }),
  });
  return conversation.id;
}
// Polls read one conversation per relay; sends go to conversations of their own, which grow as the bench runs.
const relayPolls = await relayConversation(relay.url);
const relayRedisPolls = await relayConversation(relayRedis.url);
const relaySends = await relayConversation(relay.url);
const relayRedisSends = await relayConversation(relayRedis.url);
const floorPolls = await upstreamConversation();
const floor = await start('floor', process.execPath, [
  ...profiled,
  new URL('floor-proxy.mjs', import.meta.url).pathname,
  simulator.url,
  token,
  floorPolls,
  await upstreamConversation(),
  UPSTREAM_CONNECTIONS,
]);
if (PROFILE_DIR)
  process.stderr.write(`floor: process ${floor.child.pid} (each CPU profile is CPU.*.PID.*.cpuprofile)\n`);
await sleep(1500); // the simulated bot answers after a short delay

const poll = '/v1/conversation/messages?after=0';
const panel = { 'X-Practice-Chat': '1' };
/** A send with a key of its own each time, as a panel sends each new message. */
function sendRequest(relayUrl, withHandle) {
  const body = JSON.stringify({ text: 'Do you see patients on Saturdays?' });
  let count = 0;
  const keyPrefix = randomBytes(6).toString('base64url');
  const headers = { Origin: relayUrl, 'Content-Type': 'application/json', ...withHandle };
  return {
    method: 'POST',
    requests: [
      {
        method: 'POST',
        path: '/v1/conversation/messages',
        body,
        setupRequest: (request) => {
          count += 1;
          return { ...request, headers: { ...headers, 'Idempotency-Key': `bench-${keyPrefix}-${count}` } };
        },
      },
    ],
  };
}
const floorSendBody = JSON.stringify({ text: 'Do you see patients on Saturdays?' });
// `floor`: what the goal compares the relay's row with; `process`: whose CPU the row reports.
const targets = [
  {
    name: 'relay',
    call: 'poll',
    process: relay,
    floor: 'floor',
    url: `${relay.url}${poll}`,
    headers: { ...panel, ...relayPolls },
  },
  {
    name: 'relay, Redis',
    call: 'poll',
    process: relayRedis,
    floor: 'floor',
    url: `${relayRedis.url}${poll}`,
    headers: { ...panel, ...relayRedisPolls },
  },
  {
    name: 'relay, status every poll',
    call: 'poll',
    process: relayEveryPoll,
    floor: 'floor',
    url: `${relayEveryPoll.url}${poll}`,
    headers: { ...panel, ...relayPolls },
  },
  { name: 'floor', call: 'poll', process: floor, url: `${floor.url}/`, headers: {} },
  {
    name: 'simulator',
    call: 'poll',
    process: simulator,
    url: `${simulator.url}/api/conversations/${floorPolls}/messages/?after=0`,
    headers: auth,
  },
  {
    name: 'relay send',
    call: 'send',
    process: relay,
    floor: 'floor send',
    url: relay.url,
    ...sendRequest(relay.url, relaySends),
  },
  {
    name: 'relay send, Redis',
    call: 'send',
    process: relayRedis,
    floor: 'floor send',
    url: relayRedis.url,
    ...sendRequest(relayRedis.url, relayRedisSends),
  },
  {
    name: 'floor send',
    call: 'send',
    process: floor,
    url: `${floor.url}/messages`,
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: floorSendBody,
  },
];

if (baseline !== null) {
  const polls = await relayConversation(baseline.relay.url);
  const redisPolls = await relayConversation(baseline.relayRedis.url);
  const sends = await relayConversation(baseline.relay.url);
  const redisSends = await relayConversation(baseline.relayRedis.url);
  const { relay: base, relayRedis: baseRedis } = baseline;
  targets.push(
    {
      name: 'baseline relay',
      process: base,
      floor: 'floor',
      url: `${base.url}${poll}`,
      headers: { ...panel, ...polls },
    },
    {
      name: 'baseline relay, Redis',
      process: baseRedis,
      floor: 'floor',
      url: `${baseRedis.url}${poll}`,
      headers: { ...panel, ...redisPolls },
    },
    { name: 'baseline relay send', process: base, floor: 'floor send', url: base.url, ...sendRequest(base.url, sends) },
    {
      name: 'baseline relay send, Redis',
      process: baseRedis,
      floor: 'floor send',
      url: baseRedis.url,
      ...sendRequest(baseRedis.url, redisSends),
    },
  );
}

function load(target, connections, seconds) {
  const { url, method = 'GET', headers = {}, body, requests } = target;
  return autocannon({
    url,
    method,
    headers,
    ...(body === undefined ? {} : { body }),
    ...(requests === undefined ? {} : { requests }),
    connections,
    duration: seconds,
    pipelining: 1,
    ...(RATE === null ? {} : { overallRate: RATE }),
  });
}

// Warm every path (JIT, connection pools, the relay's token) before anything counts.
for (const target of targets) await load(target, 10, 1);
const idleRss = { relay: rssMb(relay.child.pid), 'relay, Redis': rssMb(relayRedis.child.pid) };
const loadRss = { relay: 0, 'relay, Redis': 0 };

const measured = ONLY === null ? targets : targets.filter((target) => ONLY.test(target.name));
const runs = new Map(); // `${name}@${connections}` → results
for (let round = 0; round < ROUNDS; round++) {
  // Each round starts one target further on, so that none is always measured first or last in a round (after the
  // others have warmed the machine, or while a neighbour's load rises): the baseline rows come last in the list.
  const order = measured.map((_, index) => measured[(index + round) % measured.length]);
  for (const connections of LEVELS) {
    for (const target of order) {
      const rssName = target.process === relay ? 'relay' : target.process === relayRedis ? 'relay, Redis' : null;
      const sampler =
        rssName === null
          ? null
          : setInterval(() => (loadRss[rssName] = Math.max(loadRss[rssName], rssMb(target.process.child.pid))), 250);
      const before = {
        own: cpuMs(target.process.child.pid),
        ownSyscalls: syscalls(target.process.child.pid),
        upstream: cpuMs(simulator.child.pid),
        redis: cpuMs(redis.child.pid),
      };
      const benchCpuBefore = process.cpuUsage();
      const result = await load(target, connections, SECONDS);
      const benchCpu = process.cpuUsage(benchCpuBefore);
      result.loadCpuPerRequestMs = (benchCpu.user + benchCpu.system) / 1000 / Math.max(result.requests.total, 1);
      const perRequest = (pid, from) => (cpuMs(pid) - from) / Math.max(result.requests.total, 1);
      result.cpuPerRequestMs = perRequest(target.process.child.pid, before.own);
      result.syscallsPerRequest =
        (syscalls(target.process.child.pid) - before.ownSyscalls) / Math.max(result.requests.total, 1);
      // What the same requests cost the upstream (the simulator's CPU) and Redis: a status read per poll, or a
      // round trip more per request, shows there.
      result.upstreamCpuPerRequestMs = perRequest(simulator.child.pid, before.upstream);
      result.redisCpuPerRequestMs = perRequest(redis.child.pid, before.redis);
      if (sampler) clearInterval(sampler);
      if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
        throw new Error(
          `${target.name} at ${connections} connections: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`,
        );
      }
      const key = `${target.name}@${connections}`;
      runs.set(key, [...(runs.get(key) ?? []), result]);
      process.stderr.write(
        `round ${round + 1} ${key}: ${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms, ${(1000 * result.cpuPerRequestMs).toFixed(0)} µs CPU/request, ${result.syscallsPerRequest.toFixed(1)} system calls/request, upstream ${(1000 * result.upstreamCpuPerRequestMs).toFixed(0)} µs, Redis ${(1000 * result.redisCpuPerRequestMs).toFixed(0)} µs, autocannon ${(1000 * result.loadCpuPerRequestMs).toFixed(0)} µs\n`,
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
  if (results === undefined) return null;
  return {
    rps: median(results.map((r) => r.requests.average)),
    p50: median(results.map((r) => r.latency.p50)),
    p99: median(results.map((r) => r.latency.p99)),
    cpuUs: median(results.map((r) => 1000 * r.cpuPerRequestMs)),
    syscalls: median(results.map((r) => r.syscallsPerRequest)),
    upstreamCpuUs: median(results.map((r) => 1000 * r.upstreamCpuPerRequestMs)),
    redisCpuUs: median(results.map((r) => 1000 * r.redisCpuPerRequestMs)),
  };
};

const lines = [
  `Relay bench: ${ROUNDS} interleaved rounds × ${SECONDS} s per target and level (medians)${RATE === null ? '' : `, ${RATE} requests a second per target`}. poll: GET messages?after=0; send: POST messages, a new Idempotency-Key each.`,
  '',
  '| connections | target | req/s | p50 ms | p99 ms | own CPU µs/request | own system calls/request | upstream CPU µs/request | Redis CPU µs/request | relay/floor req/s | relay p99 / floor p99 |',
  '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
];
const verdicts = [];
for (const connections of LEVELS) {
  for (const target of measured) {
    const row = summary(target.name, connections);
    const floorRow = target.floor === undefined ? null : summary(target.floor, connections);
    const share = floorRow === null ? null : row.rps / floorRow.rps;
    const p99Times = floorRow === null ? null : row.p99 / Math.max(floorRow.p99, 1);
    const ratios = share === null ? ' | ' : `${Math.round(100 * share)} % | ${p99Times.toFixed(2)}×`;
    const redisCpu = target.name.endsWith('Redis') ? Math.round(row.redisCpuUs) : '';
    lines.push(
      `| ${connections} | ${target.name} | ${Math.round(row.rps)} | ${row.p50} | ${row.p99} | ${Math.round(row.cpuUs)} | ${row.syscalls.toFixed(1)} | ${Math.round(row.upstreamCpuUs)} | ${redisCpu} | ${ratios} |`,
    );
    if (RATE === null && connections === 100 && share !== null && /^relay( send)?(, Redis)?$/.test(target.name)) {
      const met = share >= GOAL.share && p99Times <= GOAL.p99Times;
      verdicts.push({
        name: target.name,
        met,
        text: `${target.name}: ${Math.round(100 * share)} %, p99 ${p99Times.toFixed(2)}×`,
      });
    }
  }
}
lines.push(
  '',
  `Relay resident memory: ${idleRss.relay.toFixed(0)} MB idle, ${loadRss.relay.toFixed(0)} MB at most under load; with Redis ${idleRss['relay, Redis'].toFixed(0)} MB idle, ${loadRss['relay, Redis'].toFixed(0)} MB at most.`,
);
const goal = `≥ ${100 * GOAL.share} % of the floor's req/s, p99 ≤ ${GOAL.p99Times}× the floor's`;
lines.push(
  RATE !== null
    ? `Goal at 100 connections (${goal}): not judged at a fixed rate (BENCH_RATE).`
    : verdicts.length === 0
      ? `Goal at 100 connections (${goal}): not measured (no floor at 100 connections in this run).`
      : `Goal at 100 connections (${goal}): ${verdicts.every((v) => v.met) ? 'met' : 'NOT met'} (${verdicts.map((v) => `${v.text}${v.met ? '' : ' NOT met'}`).join('; ')}).`,
);
console.log(lines.join('\n'));

stopAll();
await sleep(PROFILE_DIR ? 1500 : 100); // the relays write their CPU profiles as they exit
process.exit(verdicts.some((v) => !v.met) ? 1 : 0);
