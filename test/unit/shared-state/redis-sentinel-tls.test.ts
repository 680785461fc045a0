// REDIS_TLS and REDIS_SENTINEL_TLS on a Sentinel group that listens on TLS only (no plain port anywhere): a relay
// process creates a conversation and sends a message through it, then follows a failover to the replica over TLS as
// well. The relay trusts the group's throwaway certificate as an operator trusts a private CA: NODE_EXTRA_CA_CERTS;
// a relay that does not trust it reaches nothing (the certificates are checked, so a node or a Sentinel that cannot
// show one is never told the password).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulatorServer } from '../../../src/simulator/server.ts';
import { bearer, MESSAGES } from '../../support/conversation-calls.ts';
import { startRelayProcess, type RelayProcess } from '../../support/relay-process.ts';
import { startSentinelGroup, type SentinelGroup } from '../../support/redis-sentinel-group.ts';

const HANDLE_SECRET = 'Tq3vR8tY2wK6yR0pL3sX9bN5cF7hJ1dG+eA2uT8oY4k=';
const ORIGIN = 'http://127.0.0.1:1';
/** Far longer than the failover takes here; the bound that matters is the relay-process failover test's. */
const FOLLOWS_WITHIN_MS = 20_000;

let group: SentinelGroup;
let upstream: Awaited<ReturnType<typeof startSimulatorServer>>;
let relay: RelayProcess;
let environment: Record<string, string>;

beforeAll(async () => {
  group = await startSentinelGroup({ tls: true });
  upstream = await startSimulatorServer({ port: 0, botReplyDelayMs: 60_000, agentJoinDelayMs: 60_000 });
  environment = {
    UPSTREAM_URL: upstream.url,
    UPSTREAM_USERNAME: upstream.simulator.seed.username,
    UPSTREAM_PASSWORD: upstream.simulator.seed.password,
    HANDLE_SECRET,
    PUBLIC_ORIGIN: ORIGIN,
    REDIS_SENTINELS: group.sentinelList,
    REDIS_SENTINEL_MASTER_NAME: group.masterName,
    REDIS_PASSWORD: group.password,
    REDIS_SENTINEL_PASSWORD: group.sentinelPassword,
    // REDIS_SENTINEL_TLS follows it.
    REDIS_TLS: 'true',
  };
  relay = await startRelayProcess({ ...environment, NODE_EXTRA_CA_CERTS: group.certificatePath! });
}, 60_000);
afterAll(async () => {
  await relay?.stop('SIGKILL');
  await Promise.all([upstream?.close(), group?.close()]);
});

const headers = { Origin: ORIGIN, 'Content-Type': 'application/json' };

async function sendsWithin(handle: string, marker: string, ms: number): Promise<number> {
  const deadline = Date.now() + ms;
  let status = 0;
  for (let attempt = 0; status !== 201 && Date.now() < deadline; attempt++) {
    const answer = await fetch(`${relay.url}${MESSAGES}`, {
      method: 'POST',
      headers: { ...headers, 'Idempotency-Key': `tls-${marker}-${attempt}-0000`, ...bearer(handle) },
      body: JSON.stringify({ text: `over TLS ${marker} ${attempt}` }),
    });
    status = answer.status;
    await answer.body?.cancel();
    if (status !== 201) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return status;
}

it('a conversation through Sentinels and Redis that speak TLS only, before and after a failover', async () => {
  const created = await fetch(`${relay.url}/v1/conversations`, {
    method: 'POST',
    headers: { ...headers, 'Idempotency-Key': randomUUID() },
    body: JSON.stringify({ client_id: 'demo-client' }),
  });
  expect(created.status, relay.output()).toBe(201);
  const { conversation } = (await created.json()) as { conversation: string };
  expect(await sendsWithin(conversation, 'before', 5000)).toBe(201);

  const { switched } = await group.watchForSwitch();
  await group.kill(await group.primaryPort());
  const { port } = await switched;
  expect(await sendsWithin(conversation, 'after', FOLLOWS_WITHIN_MS), relay.output().slice(-3000)).toBe(201);
  // The relay's line at the return names the new primary (its output reaches this process a moment later).
  await expect
    .poll(() =>
      relay
        .output()
        .split('\n')
        .some((line) => line.includes('"redis":"back"') && line.includes(`"primary":"127.0.0.1:${port}"`)),
    )
    .toBe(true);
}, 60_000);

it('a relay that does not trust the certificate reaches nothing: 503 storage_unavailable, Redis reported lost', async () => {
  const untrusting = await startRelayProcess(environment);
  try {
    const created = await fetch(`${untrusting.url}/v1/conversations`, {
      method: 'POST',
      headers: { ...headers, 'Idempotency-Key': randomUUID() },
      body: JSON.stringify({ client_id: 'demo-client' }),
    });
    const body = (await created.json()) as { error?: { code: string } };
    expect([created.status, body.error?.code]).toEqual([503, 'storage_unavailable']);
    await expect.poll(() => untrusting.output().includes('"redis":"lost"')).toBe(true);
    expect(untrusting.output()).not.toContain('"redis":"back"');
  } finally {
    await untrusting.stop('SIGKILL');
  }
}, 60_000);
