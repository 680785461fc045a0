// The shipped nginx configuration (deploy/nginx/relay.conf) with Debian's nginx, in front of two relay processes
// sharing a real Redis: `nginx -t` accepts it, a conversation works through it, its access log holds no handle, and
// the relays count each visitor by the address nginx passes on (X-Forwarded-For with TRUST_PROXY).
// The only changes to the shipped file are where things are on this machine: the relays' and nginx's ports, and the
// log paths (see `forThisMachine`).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulatorServer } from '../../../src/simulator/server.ts';
import { bearer, CONVERSATION, MESSAGES } from '../../support/conversation-calls.ts';
import { freePort } from '../../support/free-port.ts';
import { startRelayProcess, type RelayProcess } from '../../support/relay-process.ts';
import { startTestRedis, type TestRedis } from '../../support/redis-server.ts';

const NGINX = process.env.NGINX_PATH || '/usr/sbin/nginx';
const SHIPPED = readFileSync(fileURLToPath(new URL('../../../deploy/nginx/relay.conf', import.meta.url)), 'utf8');

let work: string;
let redis: TestRedis;
let simulator: Awaited<ReturnType<typeof startSimulatorServer>>;
let relays: RelayProcess[] = [];
let nginx: ChildProcess | undefined;
let origin: string;

/** The shipped configuration with this machine's ports and paths: each substitution must find its target. */
function forThisMachine(relayPorts: number[], port: number): string {
  const substitutions: [string, string][] = [
    ['server relay-1:8787', `server 127.0.0.1:${relayPorts[0]}`],
    ['server relay-2:8787', `server 127.0.0.1:${relayPorts[1]}`],
    ['listen 8080;', `listen 127.0.0.1:${port};`],
    ['/var/log/nginx/relay-access.log', join(work, 'access.log')],
    ['/var/log/nginx/relay-error.log', join(work, 'error.log')],
  ];
  let text = SHIPPED;
  for (const [from, to] of substitutions) {
    expect(text, `the shipped configuration has ${from}`).toContain(from);
    text = text.replace(from, to);
  }
  return text;
}

/** A main configuration around it, as Debian's /etc/nginx/nginx.conf includes conf.d/. */
function mainConfiguration(): string {
  const temp = (name: string) => `${name}_temp_path ${join(work, name)};`;
  return [
    // As root, nginx's workers would switch to `nobody`, who cannot write into this test's temporary directory.
    typeof process.getuid === 'function' && process.getuid() === 0 ? 'user root;' : '',
    'daemon off;',
    'worker_processes 1;',
    `pid ${join(work, 'nginx.pid')};`,
    `error_log ${join(work, 'main-error.log')} warn;`,
    'events { worker_connections 256; }',
    'http {',
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp),
    `  include ${join(work, 'relay.conf')};`,
    '}',
  ].join('\n');
}

beforeAll(async () => {
  if (!existsSync(NGINX))
    throw new Error(`${NGINX} not found: this test runs Debian's nginx (apt-get install nginx; or set NGINX_PATH).`);
  work = mkdtempSync(join(tmpdir(), 'relay-nginx-'));
  for (const dir of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(work, dir));
  redis = await startTestRedis();
  simulator = await startSimulatorServer({ botReplyDelayMs: 0 });
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  const environment = {
    UPSTREAM_URL: simulator.url,
    UPSTREAM_USERNAME: simulator.simulator.seed.username,
    UPSTREAM_PASSWORD: simulator.simulator.seed.password,
    HANDLE_SECRET: 'Nq3vR8tY2wK6yR0pL3sX9bN5cF7hJ1dG+eA2uT8oY4k=',
    PUBLIC_ORIGIN: origin,
    REDIS_URL: redis.url,
    TRUST_PROXY: '127.0.0.1',
    CONVERSATIONS_PER_HOUR_PER_IP: '1',
  };
  relays = await Promise.all([startRelayProcess(environment), startRelayProcess(environment)]);
  writeFileSync(
    join(work, 'relay.conf'),
    forThisMachine(
      relays.map((relay) => Number(new URL(relay.url).port)),
      port,
    ),
  );
  writeFileSync(join(work, 'nginx.conf'), mainConfiguration());
}, 40_000);

afterAll(async () => {
  nginx?.kill('SIGTERM');
  await Promise.all(relays.map((relay) => relay.stop('SIGKILL')));
  await Promise.all([simulator?.close(), redis?.close()]);
  if (work) rmSync(work, { recursive: true, force: true });
});

const call = (path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
  fetch(`${origin}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { Origin: origin, 'Content-Type': 'application/json', ...init.headers },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });

it('nginx -t accepts the shipped configuration', () => {
  const checked = spawnSync(NGINX, ['-t', '-p', work, '-c', join(work, 'nginx.conf')], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(checked.stderr).toContain('syntax is ok');
  expect(checked.status).toBe(0);
});

it('in front of two relays: a conversation works, each visitor is counted by its own address, and the access log holds no handle', async () => {
  nginx = spawn(NGINX, ['-p', work, '-c', join(work, 'nginx.conf')], { stdio: 'ignore' });
  const deadline = Date.now() + 10_000;
  while (
    (await fetch(`${origin}/loader.js`).then(
      (response) => response.status,
      () => 0,
    )) !== 200
  ) {
    if (Date.now() > deadline)
      throw new Error(`nginx did not answer: ${readFileSync(join(work, 'main-error.log'), 'utf8')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  // One conversation an hour per address (CONVERSATIONS_PER_HOUR_PER_IP=1): visitor A's second is refused, visitor
  // B's first is not, so the relays see the visitors' addresses, not nginx's.
  const visitorA = { 'X-Forwarded-For': '203.0.113.10' };
  const created = await call('/v1/conversations', { body: { client_id: 'demo-client' }, headers: visitorA });
  expect(created.status).toBe(201);
  const handle = ((await created.json()) as { conversation: string }).conversation;
  expect((await call('/v1/conversations', { body: { client_id: 'demo-client' }, headers: visitorA })).status).toBe(429);
  expect(
    (
      await call('/v1/conversations', {
        body: { client_id: 'demo-client' },
        headers: { 'X-Forwarded-For': '203.0.113.11' },
      })
    ).status,
  ).toBe(201);

  const sent = await call(MESSAGES, {
    body: { text: 'Through nginx' },
    headers: { ...bearer(handle), 'Idempotency-Key': 'nginx-key-0001' },
  });
  expect(sent.status).toBe(201);
  const read = await call(`${MESSAGES}?after=0`, { headers: bearer(handle) });
  expect(read.status).toBe(200);
  expect(((await read.json()) as { messages: { text: string }[] }).messages.map((message) => message.text)).toContain(
    'Through nginx',
  );
  expect((await call(CONVERSATION, { method: 'DELETE', headers: bearer(handle) })).status).toBe(204);

  nginx.kill('SIGQUIT'); // a graceful stop writes out the access log
  await new Promise((resolve) => nginx!.once('exit', resolve));
  const log = readFileSync(join(work, 'access.log'), 'utf8');
  expect(log.split('\n').filter((line) => line.includes('/v1/conversation')).length).toBeGreaterThanOrEqual(6);
  expect(log).not.toContain(handle);
  expect(log).not.toContain(handle.slice(0, 24));
}, 40_000);
