// `npx tsx bench/redis-memory.ts`: what the relay keeps in Redis per conversation, measured on a real redis-server
// with the relay's own stores. A relay (in this process, on the simulator) serves BENCH_CONVERSATIONS visitors, each
// from an address of its own: a create, BENCH_MESSAGES sends, a poll after each, and one service event; then every
// key is counted by family, with Redis's own MEMORY USAGE per key, INFO memory's used_memory before and after, and
// the commands Redis processed meanwhile.
// The figures feed the sizing arithmetic in docs/deploying.md ("Is one Redis enough?").
//
// Environment: BENCH_CONVERSATIONS (default 2000), BENCH_MESSAGES (default 6), REDIS_SERVER_PATH.
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { createRelayApp } from '../src/relay/app.ts';
import { createJsonLogger } from '../src/relay/log.ts';
import { readSettings } from '../src/relay/settings.ts';
import { createRedisSharedState } from '../src/relay/stores.ts';
import { signEvent, UPSTREAM_EVENTS_PATH } from '../src/relay/upstream/contract/index.ts';
import { createUpstreamClient } from '../src/relay/upstream/index.ts';
import { createSimulator } from '../src/simulator/app.ts';
import { freePort } from '../tools/free-port.ts';

const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 2000);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 6);
const REDIS_SERVER = process.env.REDIS_SERVER_PATH || '/usr/bin/redis-server';
const ORIGIN = 'http://relay.bench';
const EVENTS_SECRET = randomBytes(32).toString('base64');

const port = await freePort();
const dataDir = mkdtempSync(join(tmpdir(), 'bench-redis-memory-'));
const server = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dataDir], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
process.on('exit', () => server.kill('SIGKILL'));
await new Promise<void>((resolve, reject) => {
  server.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('Ready to accept connections') && resolve());
  server.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
});
const url = `redis://127.0.0.1:${port}`;
const reader = new Redis(url);

const settings = readSettings(
  {
    NODE_ENV: 'test',
    PUBLIC_ORIGIN: ORIGIN,
    TRUST_PROXY: '1',
    UPSTREAM_EVENTS_SECRET: EVENTS_SECRET,
    REQUESTS_PER_MINUTE_PER_IP: '1000000',
    CONVERSATIONS_PER_HOUR_PER_IP: '1000000',
  },
  () => randomBytes(32),
);
const simulator = createSimulator({ botReplyDelayMs: 60_000, agentJoinDelayMs: 60_000 });
const shared = createRedisSharedState(
  url,
  createJsonLogger(() => {}),
  undefined,
  undefined,
  settings.handleSecret,
);
const app = createRelayApp({
  settings,
  upstream: {
    client: createUpstreamClient({
      baseUrl: 'http://127.0.0.1:8788',
      username: simulator.seed.username,
      password: simulator.seed.password,
      fetch: (input, init) => simulator.fetch(input, init),
      timeoutMs: settings.upstreamTimeoutMs,
    }),
  },
  files: { distDir: dataDir, publicDir: dataDir },
  observability: { logger: createJsonLogger(() => {}) },
  shared,
});

const memoryUsed = async () => Number(/used_memory:(\d+)/.exec(await reader.info('memory'))?.[1]);
const commandsProcessed = async () => Number(/total_commands_processed:(\d+)/.exec(await reader.info('stats'))?.[1]);
/** Let the relay write its start-up key and the allocator settle, so the baseline holds what any relay holds. */
await new Promise((resolve) => setTimeout(resolve, 500));
const before = await memoryUsed();
const commandsBefore = await commandsProcessed();

function call(path: string, address: string, init: { body?: unknown; headers?: Record<string, string> } = {}) {
  return app.request(`${ORIGIN}${path}`, {
    method: init.body === undefined ? 'GET' : 'POST',
    headers: { Origin: ORIGIN, 'Content-Type': 'application/json', 'X-Forwarded-For': address, ...init.headers },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
}

const started = Date.now();
for (let n = 0; n < CONVERSATIONS; n++) {
  const address = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
  const created = await call('/v1/conversations', address, {
    body: { client_id: 'demo-client' },
    headers: { 'Idempotency-Key': randomUUID() },
  });
  if (created.status !== 201) throw new Error(`create answered ${created.status}`);
  const { conversation } = (await created.json()) as { conversation: string };
  for (let m = 0; m < MESSAGES; m++) {
    const headers = { Authorization: `Bearer ${conversation}` };
    const sent = await call('/v1/conversation/messages', address, {
      body: { text: `A question of about this length, as a patient would type it (${m}).` },
      headers: { ...headers, 'Idempotency-Key': randomBytes(16).toString('base64url') },
    });
    if (sent.status !== 201) throw new Error(`send answered ${sent.status}`);
    await (await call('/v1/conversation/messages?after=0', address, { headers })).arrayBuffer();
  }
  const event = JSON.stringify({
    id: `evt-${randomUUID()}`,
    type: 'conversation.message_created',
    conversation: [...simulator.store.conversations.keys()].at(-1),
    occurred_at: new Date().toISOString(),
  });
  await app.request(`${ORIGIN}${UPSTREAM_EVENTS_PATH}`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'Upstream-Signature': signEvent(EVENTS_SECRET, Math.floor(Date.now() / 1000), event),
    },
    body: event,
  });
}
const seconds = (Date.now() - started) / 1000;
// This reader's own INFO is one command more.
const commands = (await commandsProcessed()) - commandsBefore - 1;
const after = await memoryUsed();

// Every key, by family (`pwc:idem:`, `pwc:quota:requests-per-address:` …), with MEMORY USAGE each.
const families = new Map<string, { keys: number; bytes: number }>();
let cursor = '0';
do {
  const [next, keys] = await reader.scan(cursor, 'COUNT', 1000);
  cursor = next;
  for (const key of keys) {
    const parts = key.split(':');
    const family = parts[1] === 'quota' ? `pwc:quota:${parts[2]}:` : parts.length > 2 ? `pwc:${parts[1]}:` : key;
    const bytes = Number(await reader.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
    const entry = families.get(family) ?? { keys: 0, bytes: 0 };
    families.set(family, { keys: entry.keys + 1, bytes: entry.bytes + bytes });
  }
} while (cursor !== '0');

const rows = [...families].sort(([a], [b]) => a.localeCompare(b));
const totalKeys = rows.reduce((sum, [, entry]) => sum + entry.keys, 0);
const totalBytes = rows.reduce((sum, [, entry]) => sum + entry.bytes, 0);
console.log(
  `${CONVERSATIONS} conversations, ${MESSAGES} messages each, in ${seconds.toFixed(1)} s (redis-server ${/redis_version:(\S+)/.exec(await reader.info('server'))?.[1]})`,
);
console.log('| key family | keys | keys per conversation | bytes per key (MEMORY USAGE) | bytes per conversation |');
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const [family, { keys, bytes }] of rows)
  console.log(
    `| \`${family}\` | ${keys} | ${(keys / CONVERSATIONS).toFixed(2)} | ${Math.round(bytes / keys)} | ${Math.round(bytes / CONVERSATIONS)} |`,
  );
console.log(
  `| all | ${totalKeys} | ${(totalKeys / CONVERSATIONS).toFixed(2)} | ${Math.round(totalBytes / totalKeys)} | ${Math.round(totalBytes / CONVERSATIONS)} |`,
);
console.log(
  `INFO memory used_memory: ${before} bytes before, ${after} after: ${Math.round((after - before) / CONVERSATIONS)} bytes per conversation`,
);
console.log(
  `Commands Redis processed (INFO stats): ${commands}, ${(commands / CONVERSATIONS).toFixed(1)} per conversation of ${MESSAGES} sends, ${MESSAGES} polls and one service event`,
);

await shared.close();
simulator.close();
reader.disconnect();
server.kill('SIGKILL');
rmSync(dataDir, { recursive: true, force: true });
