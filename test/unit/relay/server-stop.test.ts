// `npm start` (src/server.ts) as a real process: SIGTERM while a send is in flight lets the send finish and exits 0;
// a grace period too short for it exits 1; with the embedded simulator both ports close.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { relayServerArguments } from '../../support/relay-process.ts';
import { sendHeldByUpstream, startSlowUpstream, tryConnect } from '../../support/slow-upstream.ts';

const ROOT = new URL('../../../', import.meta.url);
const children: ChildProcessWithoutNullStreams[] = [];
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.allSettled(cleanups.splice(0).map((cleanup) => cleanup()));
});

/** Starts `npm start`'s relay (src/server.ts) and resolves once it has printed its addresses. */
async function startServer(environment: Record<string, string>) {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(UPSTREAM_|PUBLIC_ORIGIN|HANDLE_SECRET|HOST$|PORT$|SIMULATOR_PORT|SHUTDOWN_GRACE_MS)/.test(name),
    ),
  );
  const child = spawn(process.execPath, relayServerArguments(), {
    cwd: ROOT,
    env: { ...inherited, NODE_ENV: 'development', PORT: '0', SIMULATOR_PORT: '0', ...environment },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => (output += chunk));
  child.stderr.on('data', () => {});
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', () => output.includes('Health:') && resolve());
    child.once('exit', (code) => reject(new Error(`exited early with ${code}: ${output}`)));
  });
  const relayUrl = /Relay listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
  if (relayUrl === undefined) throw new Error(`no relay URL in: ${output}`);
  const simulatorUrl = /built-in simulator at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
  return { child, relayUrl, simulatorUrl, output: () => output };
}

async function withSlowUpstream(delayMs = 1500) {
  const upstream = await startSlowUpstream({ delayMs });
  cleanups.push(() => upstream.close());
  return {
    upstream,
    environment: {
      UPSTREAM_URL: upstream.url,
      UPSTREAM_USERNAME: upstream.seed.username,
      UPSTREAM_PASSWORD: upstream.seed.password,
    },
  };
}

describe('npm start (src/server.ts) on SIGTERM', () => {
  it('lets the send in flight finish with 201, then exits 0', async () => {
    const { upstream, environment } = await withSlowUpstream();
    const server = await startServer({ ...environment, SHUTDOWN_GRACE_MS: '8000' });
    const held = await sendHeldByUpstream(
      server.relayUrl,
      upstream,
      'server-stop-0001',
      'Is the practice open on Saturday?',
    );
    const send = held.send.then(
      (response) => `answered ${response.status}`,
      () => 'connection closed',
    );
    const exited = once(server.child, 'exit');
    server.child.kill('SIGTERM');
    expect(await send).toBe('answered 201');
    const [code] = await exited;
    expect(code).toBe(0);
    expect(server.output()).toContain('Stopped: every request in flight finished.');
    expect(upstream.sendsArrived()).toBe(1);
  }, 30_000);

  it('exits 1 when the grace period ends with the send still in flight, which is answered 503 to be retried', async () => {
    const { upstream, environment } = await withSlowUpstream();
    const server = await startServer({ ...environment, SHUTDOWN_GRACE_MS: '100' });
    const held = await sendHeldByUpstream(
      server.relayUrl,
      upstream,
      'server-stop-0001',
      'Is the practice open on Saturday?',
    );
    const send = held.send.then(
      async (response) => `answered ${response.status} ${(await response.json()).error.code}`,
      () => 'connection closed',
    );
    const exited = once(server.child, 'exit');
    server.child.kill('SIGTERM');
    // Its upstream call is aborted at the end of the grace period, so the panel hears at once and retries.
    expect(await send).toBe('answered 503 upstream_unavailable');
    const [code] = await exited;
    expect(code).toBe(1);
    expect(server.output()).toContain('the grace period ran out');
  }, 30_000);

  it('is bounded by the grace period, not by UPSTREAM_TIMEOUT_MS: exits within a second and a half of it', async () => {
    // The upstream holds the send far longer than the relay's own upstream timeout would wait.
    const { upstream, environment } = await withSlowUpstream(30_000);
    const graceMs = 1000;
    const server = await startServer({
      ...environment,
      SHUTDOWN_GRACE_MS: String(graceMs),
      UPSTREAM_TIMEOUT_MS: '15000',
    });
    const held = await sendHeldByUpstream(
      server.relayUrl,
      upstream,
      'server-stop-0002',
      'Is the practice open on Sunday?',
    );
    const send = held.send.then(
      (response) => `answered ${response.status}`,
      () => 'connection closed',
    );
    const exited = once(server.child, 'exit');
    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    const [code] = await exited;
    const stoppedAfterMs = Date.now() - signalledAt;
    expect(code).toBe(1);
    expect(await send).toBe('answered 503');
    // Before: the process waited for the upstream call, 15 s here. A bound the issue sets, with room for a busy machine.
    expect(stoppedAfterMs).toBeLessThan(graceMs + 1500);
  }, 30_000);

  it('with the embedded simulator: exits 0 and closes both ports', async () => {
    const server = await startServer({});
    expect(server.simulatorUrl).toBeDefined();
    expect((await fetch(`${server.relayUrl}/readyz`)).status).toBe(200);
    const exited = once(server.child, 'exit');
    server.child.kill('SIGTERM');
    const [code] = await exited;
    expect(code).toBe(0);
    expect(await tryConnect(server.relayUrl)).toBe('ECONNREFUSED');
    expect(await tryConnect(server.simulatorUrl ?? '')).toBe('ECONNREFUSED');
  }, 30_000);
});
