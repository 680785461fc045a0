// The production section of docs/deploying.md followed as written, on loopback: Debian's nginx with the shipped relay.conf and
// relay-tls.conf (TLS and HTTP/2 ended at nginx, a self-signed certificate made here), three relay processes in
// production mode, Redis with the settings docs/deploying.md asks for (append-only file synced on every write,
// `noeviction`, a password) and the simulator as its own process sending its signed events through nginx over TLS.
// Checked: a conversation works over HTTP/2, a team member's reply reaches an open live stream because an event woke
// the watch (pwc_upstream_events_total{outcome="accepted"} rises), and each visitor is counted by its own address.
// The only changes to the shipped files are where things are on this machine (see `placed`).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect, type ClientHttp2Session } from 'node:http2';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bearer, MESSAGES } from '../../support/conversation-calls.ts';
import { freePorts } from '../../support/free-port.ts';
import { startRelayProcess, type RelayProcess } from '../../support/relay-process.ts';
import { startTestRedis, type TestRedis } from '../../support/redis-server.ts';
import { writeSelfSignedCertificate } from '../../../tools/self-signed-certificate.ts';

const NGINX = process.env.NGINX_PATH || '/usr/sbin/nginx';
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const shipped = (name: string) => readFileSync(join(ROOT, 'deploy/nginx', name), 'utf8');

let work: string;
let redis: TestRedis;
let simulator: ChildProcess | undefined;
let simulatorUrl: string;
let relays: RelayProcess[] = [];
let metricsPorts: number[] = [];
let nginx: ChildProcess | undefined;
let origin: string;
let session: ClientHttp2Session | undefined;

/** A shipped file with this machine's ports and paths: each substitution must find its target. */
function placed(text: string, substitutions: [string, string][]): string {
  for (const [from, to] of substitutions) {
    expect(text, `the shipped file has ${from}`).toContain(from);
    text = text.replaceAll(from, to);
  }
  return text;
}

/** The settings the production block of docs/deploying.md exports, in its order. */
function guideProductionSettings(): string[] {
  const guide = readFileSync(join(ROOT, 'docs/deploying.md'), 'utf8');
  const section = guide.slice(
    guide.indexOf('## In production'),
    guide.indexOf('\n## ', guide.indexOf('## In production') + 1),
  );
  return [...section.matchAll(/^export (.+?)(?:\s+#.*)?$/gm)].flatMap(([, assignments]) =>
    [...assignments!.matchAll(/([A-Z_]+)=/g)].map(([, name]) => name!),
  );
}

/**
 * The relays' environment: exactly the settings of the guide's block (HOST and PORT this machine's, given by
 * startRelayProcess), plus the test's own knobs, named apart.
 */
function asTheGuideSays(settings: Record<string, string>, testKnobs: Record<string, string>): Record<string, string> {
  const asked = guideProductionSettings().filter((name) => name !== 'HOST' && name !== 'PORT');
  expect(asked).toContain('UPSTREAM_EVENTS_SECRET');
  expect(Object.keys(settings).sort()).toEqual([...asked].sort());
  return { ...settings, ...testKnobs };
}

function mainConfiguration(): string {
  const temp = (name: string) => `${name}_temp_path ${join(work, name)};`;
  return [
    typeof process.getuid === 'function' && process.getuid() === 0 ? 'user root;' : '',
    'daemon off;',
    'worker_processes 1;',
    `pid ${join(work, 'nginx.pid')};`,
    `error_log ${join(work, 'main-error.log')} warn;`,
    'events { worker_connections 256; }',
    'http {',
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp),
    `  include ${join(work, 'relay.conf')};`,
    `  include ${join(work, 'relay-tls.conf')};`,
    '}',
  ].join('\n');
}

async function startSimulator(port: number, eventsUrl: string, secret: string): Promise<void> {
  // As docs/deploying.md says: its own process, the events URL through the proxy, the secret from the environment; the
  // self-signed certificate is trusted the way Node trusts an extra CA.
  simulator = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/simulator/main.ts', '--port', String(port), '--events-url', eventsUrl],
    {
      cwd: ROOT,
      env: { ...process.env, UPSTREAM_EVENTS_SECRET: secret, NODE_EXTRA_CA_CERTS: join(work, 'fullchain.pem') },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`simulator did not start within 20 s:\n${output}`)), 20_000);
    simulator!.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    simulator!.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('listening on')) {
        clearTimeout(timer);
        resolve();
      }
    });
    simulator!.once('exit', (code) => reject(new Error(`simulator exited with ${code}:\n${output}`)));
  });
}

beforeAll(async () => {
  if (!existsSync(NGINX))
    throw new Error(`${NGINX} not found: this test runs Debian's nginx (apt-get install nginx; or set NGINX_PATH).`);
  work = mkdtempSync(join(tmpdir(), 'relay-nginx-tls-'));
  for (const dir of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(work, dir));
  writeSelfSignedCertificate('IP:127.0.0.1', join(work, 'privkey.pem'), join(work, 'fullchain.pem'));

  // "The Redis the relay needs": append-only file synced on every write, noeviction, a password.
  redis = await startTestRedis({ persistent: true });
  const password = randomBytes(24).toString('base64url');
  await redis.client.config('SET', 'maxmemory-policy', 'noeviction');
  await redis.client.config('SET', 'requirepass', password);

  const [tlsPort, plainPort, simulatorPort] = await freePorts(3);
  origin = `https://127.0.0.1:${tlsPort}`;
  const eventsSecret = randomBytes(32).toString('base64'); // openssl rand -base64 32, as docs/deploying.md says
  simulatorUrl = `http://127.0.0.1:${simulatorPort}`;
  await startSimulator(simulatorPort!, `${origin}/v1/upstream-events`, eventsSecret);

  metricsPorts = await freePorts(3);
  const handleSecret = randomBytes(32).toString('base64'); // the same on every instance
  relays = await Promise.all(
    metricsPorts.map((metricsPort) =>
      startRelayProcess(
        asTheGuideSays(
          {
            NODE_ENV: 'production',
            PUBLIC_ORIGIN: origin,
            HANDLE_SECRET: handleSecret,
            UPSTREAM_URL: simulatorUrl,
            UPSTREAM_USERNAME: 'demo@practice.example',
            UPSTREAM_PASSWORD: 'demo-password',
            TRUST_PROXY: '127.0.0.1', // TLS ends at nginx: its address, and only its
            REDIS_URL: `redis://:${password}@127.0.0.1:${redis.port}`,
            UPSTREAM_EVENTS_SECRET: eventsSecret,
            KEEP_ALIVE_TIMEOUT_MS: '65000',
            METRICS_PORT: String(metricsPort),
          },
          { CONVERSATIONS_PER_HOUR_PER_IP: '1' },
        ),
      ),
    ),
  );
  const relayPorts = relays.map((relay) => Number(new URL(relay.url).port));
  const third = `server 127.0.0.1:${relayPorts[2]} max_fails=3 fail_timeout=10s;`;
  writeFileSync(
    join(work, 'relay.conf'),
    placed(shipped('relay.conf'), [
      ['server relay-1:8787', `server 127.0.0.1:${relayPorts[0]}`],
      // docs/deploying.md: a third instance is one more `server` line.
      [
        'server relay-2:8787 max_fails=3 fail_timeout=10s;',
        `server 127.0.0.1:${relayPorts[1]} max_fails=3 fail_timeout=10s;\n    ${third}`,
      ],
      ['listen 8080;', `listen 127.0.0.1:${plainPort};`],
      ['/var/log/nginx/', `${work}/`],
    ]),
  );
  writeFileSync(
    join(work, 'relay-tls.conf'),
    placed(shipped('relay-tls.conf'), [
      ['listen 8443 ssl http2;', `listen 127.0.0.1:${tlsPort} ssl http2;`],
      ['/etc/nginx/tls/', `${work}/`],
      ['/var/log/nginx/', `${work}/`],
    ]),
  );
  writeFileSync(join(work, 'nginx.conf'), mainConfiguration());
}, 60_000);

afterAll(async () => {
  session?.destroy();
  nginx?.kill('SIGTERM');
  simulator?.kill('SIGTERM');
  await Promise.all(relays.map((relay) => relay.stop('SIGKILL')));
  await redis?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

interface Answer {
  status: number;
  body: string;
}

/** One request over the HTTP/2 session, as a browser on the practice's page sends it. */
function call(
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = session!.request({
      ':method': init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      ':path': path,
      origin,
      'content-type': 'application/json',
      ...init.headers,
    });
    let status = 0;
    let body = '';
    request.on('response', (headers) => (status = Number(headers[':status'])));
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => resolve({ status, body }));
    request.on('error', reject);
    request.end(init.body === undefined ? undefined : JSON.stringify(init.body));
  });
}

async function acceptedEvents(): Promise<number> {
  let total = 0;
  for (const port of metricsPorts) {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const match = /^pwc_upstream_events_total\{outcome="accepted"\} (\d+)$/m.exec(text);
    total += match ? Number(match[1]) : 0;
  }
  return total;
}

it('relay-tls.conf serves what relay.conf serves: the same locations and proxy settings', () => {
  const served = (text: string) =>
    text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => /^(location|proxy_|client_|allow|deny|access_log|error_log)/.test(line))
      .map((line) => line.replace(/ #.*$/, ''));
  expect(served(shipped('relay-tls.conf'))).toEqual(served(shipped('relay.conf')));
});

it('nginx -t accepts relay.conf with relay-tls.conf beside it', () => {
  const checked = spawnSync(NGINX, ['-t', '-p', work, '-c', join(work, 'nginx.conf')], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(checked.stderr).toContain('syntax is ok');
  expect(checked.status).toBe(0);
});

it('over TLS and HTTP/2: a conversation, a staff reply on the open stream woken by an event, visitors by their own address', async () => {
  nginx = spawn(NGINX, ['-p', work, '-c', join(work, 'nginx.conf')], { stdio: 'ignore' });
  const ca = readFileSync(join(work, 'fullchain.pem'));
  const deadline = Date.now() + 10_000;
  for (;;) {
    const candidate = connect(origin, { ca });
    const up = await new Promise<boolean>((resolve) => {
      candidate.once('connect', () => resolve(true));
      candidate.once('error', () => resolve(false));
    });
    if (up) {
      session = candidate;
      break;
    }
    candidate.destroy();
    if (Date.now() > deadline)
      throw new Error(`nginx did not answer: ${readFileSync(join(work, 'main-error.log'), 'utf8')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  session.on('error', () => {});
  expect(session.alpnProtocol).toBe('h2');

  const visitorA = { 'x-forwarded-for': '203.0.113.10' };
  const created = await call('/v1/conversations', { body: { client_id: 'demo-client' }, headers: visitorA });
  expect(created.status, created.body).toBe(201);
  const handle = (JSON.parse(created.body) as { conversation: string }).conversation;
  expect((await call('/v1/conversations', { body: { client_id: 'demo-client' }, headers: visitorA })).status).toBe(429);
  expect(
    (
      await call('/v1/conversations', {
        body: { client_id: 'demo-client' },
        headers: { 'x-forwarded-for': '203.0.113.11' },
      })
    ).status,
  ).toBe(201);

  const sent = await call(MESSAGES, {
    body: { text: 'Through TLS' },
    headers: { ...bearer(handle), 'idempotency-key': 'tls-trial-key-0001' },
  });
  expect(sent.status, sent.body).toBe(201);

  // The live stream, over the same HTTP/2 connection.
  const stream = session.request({
    ':method': 'GET',
    ':path': '/v1/conversation/events',
    origin,
    accept: 'text/event-stream',
    ...bearer(handle),
  });
  let streamed = '';
  let streamStatus = 0;
  stream.on('response', (headers) => (streamStatus = Number(headers[':status'])));
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => (streamed += chunk));
  stream.on('error', () => {});
  const waitFor = async (what: () => boolean, label: string, ms: number) => {
    const until = Date.now() + ms;
    while (!what()) {
      if (Date.now() > until) throw new Error(`${label} within ${ms} ms; the stream said:\n${streamed}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  await waitFor(() => streamed.includes('Through TLS'), 'the stream did not catch up', 10_000);
  expect(streamStatus).toBe(200);

  // The team member answers on the simulator's staff page. The watch's own reads could carry the reply too, so its
  // arrival alone is not enough: the service's signed event must have come through nginx and been accepted by a relay
  // (the counter rises).
  const conversations = (await (await fetch(`${simulatorUrl}/staff/api/conversations`)).json()) as {
    conversations: { id: string }[];
  };
  const before = await acceptedEvents();
  let replied = false;
  for (const { id } of conversations.conversations) {
    const detail = (await (await fetch(`${simulatorUrl}/staff/api/conversations/${id}`)).json()) as {
      messages: { text: string }[];
    };
    if (!detail.messages.some((message) => message.text === 'Through TLS')) continue;
    const reply = await fetch(`${simulatorUrl}/staff/api/conversations/${id}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'A team member answers' }),
    });
    expect(reply.status).toBe(201);
    replied = true;
  }
  expect(replied).toBe(true);
  await waitFor(() => streamed.includes('A team member answers'), 'the staff reply did not reach the stream', 10_000);
  const until = Date.now() + 5_000;
  while ((await acceptedEvents()) <= before && Date.now() < until)
    await new Promise((resolve) => setTimeout(resolve, 100));
  expect(await acceptedEvents()).toBeGreaterThan(before);
  stream.close();

  nginx.kill('SIGQUIT');
  await new Promise((resolve) => nginx!.once('exit', resolve));
  const log = readFileSync(join(work, 'relay-access.log'), 'utf8');
  expect(log).toContain('POST /v1/upstream-events HTTP/1.1" 204');
  expect(log).toContain('GET /v1/conversation/events HTTP/2.0" 200');
  expect(log).not.toContain(handle.slice(0, 24));
}, 60_000);
