// A failover that no closed connection announces: the relay's Redis client and its event subscriber follow the
// Sentinels to the new primary when the old one hangs with its connections open (a machine gone silent: SIGSTOP), and
// when it is demoted while alive (SENTINEL FAILOVER, as for maintenance), where it would answer every write READONLY.
// Real redis-server and redis-sentinel processes (test/support/redis-sentinel-group.ts). Each wait is bounded; the
// bound of a failover under load is the relay-process test's (test/unit/multi-instance/sentinel-failover.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConversationChange } from '../../../src/relay/live/event-bus.ts';
import { createChangeSealer } from '../../../src/relay/live/change-seal.ts';
import { createRedisEventBus } from '../../../src/relay/live/redis-events.ts';
import { createJsonLogger } from '../../../src/relay/log.ts';
import { createPrometheusMetrics } from '../../../src/relay/metrics/prometheus.ts';
import { createRedisClient, type RedisClient } from '../../../src/relay/shared-state/redis-client.ts';
import type { RedisSentinelTarget } from '../../../src/relay/shared-state/redis-target.ts';
import type { EventBus } from '../../../src/relay/live/event-bus.ts';
import { startSentinelGroup, type SentinelGroup } from '../../support/redis-sentinel-group.ts';

/** Longer than any failover here takes, far shorter than a hung connection would take to be noticed by TCP. */
const FOLLOWS_WITHIN_MS = 20_000;

let group: SentinelGroup;
let client: RedisClient;
let bus: EventBus;
const lines: string[] = [];
const heard: ConversationChange[] = [];
const prometheus = createPrometheusMetrics();

beforeAll(async () => {
  group = await startSentinelGroup();
  const target: RedisSentinelTarget = {
    sentinels: group.sentinelList.split(',').map((entry) => ({ host: '127.0.0.1', port: Number(entry.split(':')[1]) })),
    masterName: group.masterName,
    username: null,
    password: group.password,
    sentinelPassword: group.sentinelPassword,
    tls: false,
    sentinelTls: false,
  };
  const logger = createJsonLogger((line) => lines.push(line));
  client = createRedisClient(target, logger, prometheus.metrics);
  bus = createRedisEventBus(client, createChangeSealer(new Uint8Array(32).fill(7)));
  bus.subscribe((change) => heard.push(change));
  const deadline = Date.now() + 10_000;
  while (!(client.status === 'ready' && bus.linked()) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
}, 60_000);
afterAll(async () => {
  await bus?.close();
  client?.disconnect();
  await group?.close();
});

async function metric(name: string): Promise<number> {
  const text = await prometheus.registry.metrics();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name} `));
  return Number(line?.split(' ')[1]);
}

/** Writes through the relay's client, and a change crosses the bus, until both work or the bound runs out. */
async function writesAndHearsAgain(marker: string): Promise<void> {
  const deadline = Date.now() + FOLLOWS_WITHIN_MS;
  let written = false;
  while (!written && Date.now() < deadline) {
    written = (await client.set(`pwc:test:${marker}`, marker).catch(() => null)) === 'OK';
    if (!written) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(written, `no write within ${FOLLOWS_WITHIN_MS} ms:\n${lines.join('\n')}`).toBe(true);
  const change = { conversationId: marker, kind: 'messages' } as const;
  while (!heard.some((candidate) => candidate.conversationId === marker) && Date.now() < deadline) {
    await bus.publish(change);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  expect(heard.map((candidate) => candidate.conversationId)).toContain(marker);
}

const role = async () => /role:(\w+)/.exec(await client.info('replication'))?.[1];

/** Until the node on `port` is a replica linked to its primary: after a failover, the demoted node resyncs first. */
async function replicaInSync(port: number): Promise<void> {
  const node = group.node(port);
  await expect
    .poll(async () => (await node.info('replication').catch(() => '')).includes('master_link_status:up'), {
      timeout: 20_000,
    })
    .toBe(true);
}

describe('the relay follows a Sentinel failover', () => {
  it('when the primary hangs with its connections open (SIGSTOP): commands and the event subscriber move to the new primary', async () => {
    const changesBefore = await metric('pwc_redis_primary_changes_total');
    // A replica in sync for WAIT below: the other test's failover, when it ran first, leaves the demoted node resyncing.
    const primary = await group.primaryPort();
    await replicaInSync(group.nodePorts.find((port) => port !== primary)!);
    await writesAndHearsAgain('before');
    // Replication is asynchronous: the write is on a replica before the primary hangs, or a loaded machine can stop
    // the primary first and the write is rightly gone.
    expect(await client.call('WAIT', 1, 10_000)).toBe(1);
    const old = await group.primaryPort();
    const { switched } = await group.watchForSwitch();
    group.signal(old, 'SIGSTOP');
    try {
      const { port: promoted } = await switched;
      expect(promoted).not.toBe(old);

      await writesAndHearsAgain('after-hang');
      expect(client.stream.remotePort).toBe(promoted);
      expect(await role()).toBe('master');
      // What was written before the failover is there: the replica had it.
      expect(await client.get('pwc:test:before')).toBe('before');
      expect(await metric('pwc_redis_up')).toBe(1);
      expect(await metric('pwc_redis_primary_changes_total')).toBe(changesBefore + 1);
      const back = lines.map((line) => JSON.parse(line)).filter((line) => line.redis === 'back');
      expect(back.at(-1)).toMatchObject({ level: 'info', primary: `127.0.0.1:${promoted}` });
      expect(back.at(-1).message).toContain('on a new primary');
    } finally {
      // The old primary resumes (also when a check above failed, so the next test meets a whole group); the
      // Sentinels make it a replica of the new one, ready for the next failover.
      group.signal(old, 'SIGCONT');
    }
  }, 60_000);

  it('when the primary is demoted while alive (SENTINEL FAILOVER): no write is left answered READONLY', async () => {
    const current = await group.primaryPort();
    const [demoted] = group.nodePorts.filter((port) => port !== current);
    // The resumed node must be a replica in sync, and known healthy to the Sentinels, before it can be promoted.
    await replicaInSync(demoted!);
    await expect
      .poll(
        async () => {
          const replicas = (await group.sentinel.call('SENTINEL', 'REPLICAS', group.masterName)) as string[][];
          return replicas.some((fields) => fields[fields.indexOf('flags') + 1] === 'slave');
        },
        { timeout: 20_000 },
      )
      .toBe(true);

    // Counted from here: the other test's failover may have run before this one, or not (`--sequence.shuffle`).
    const changesBefore = await metric('pwc_redis_primary_changes_total');
    const { switched } = await group.watchForSwitch();
    await group.sentinel.call('SENTINEL', 'FAILOVER', group.masterName);
    const { port: promoted } = await switched;
    expect(promoted).toBe(demoted);

    await writesAndHearsAgain('after-demotion');
    expect(client.stream.remotePort).toBe(promoted);
    expect(await role()).toBe('master');
    expect(await metric('pwc_redis_primary_changes_total')).toBe(changesBefore + 1);
  }, 60_000);
});
