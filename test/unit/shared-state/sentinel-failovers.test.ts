// What the relay does when the Sentinels announce a failover (+switch-master): a connected client not already on the
// new primary is dropped so that it asks the Sentinels again; one on the new primary stays; another group's failover
// is ignored; and a client that is between asking a Sentinel and connecting is left alone, since dropping it then
// ends it for good in ioredis. A real redis-server stands in for the Sentinels' pub/sub (the announcement is
// published there by the test), and a TCP server that never answers holds a client in the middle of asking.
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followSentinelFailovers, SWITCH_MASTER } from '../../../src/relay/shared-state/sentinel-failovers.ts';
import type { RedisSentinelTarget } from '../../../src/relay/shared-state/redis-target.ts';
import { startTestRedis, type TestRedis } from '../../support/redis-server.ts';

let announcer: TestRedis;
let data: TestRedis;
let silent: Server;
const silentSockets = new Set<Socket>();
const clients: Redis[] = [];

beforeAll(async () => {
  [announcer, data] = await Promise.all([startTestRedis(), startTestRedis()]);
  // Accepts connections and never answers: a Sentinel that hangs while the client asks it for the primary.
  silent = createServer((socket) => {
    silentSockets.add(socket);
    socket.on('close', () => silentSockets.delete(socket));
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  for (const client of clients) client.disconnect();
  for (const socket of silentSockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
  await Promise.all([announcer?.close(), data?.close()]);
});

const target = (): RedisSentinelTarget => ({
  sentinels: [{ host: '127.0.0.1', port: announcer.port }],
  masterName: 'pwc-test',
  username: null,
  password: null,
  sentinelPassword: null,
  tls: false,
  sentinelTls: false,
});

function track(client: Redis): Redis {
  client.on('error', () => {});
  clients.push(client);
  return client;
}

/** Publishes the announcement until the watch, which subscribes as it starts, has heard it once. */
async function announce(name: string, port: number) {
  const message = `${name} 127.0.0.1 1 127.0.0.1 ${port}`;
  const deadline = Date.now() + 5000;
  while ((await announcer.client.publish(SWITCH_MASTER, message)) === 0 && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('following the Sentinels’ failovers', () => {
  it('drops a connected client that is not on the new primary, and it reconnects', async () => {
    const failovers = followSentinelFailovers(target());
    const client = track(new Redis(data.url, { maxRetriesPerRequest: 1 }));
    await new Promise((resolve) => client.once('ready', resolve));
    failovers.follow(client);
    const closed = new Promise((resolve) => client.once('close', resolve));
    await announce('pwc-test', data.port + 1);
    await closed;
    await new Promise((resolve) => client.once('ready', resolve));
    expect(await client.ping()).toBe('PONG');
    failovers.close();
  });

  it('leaves a client already on the new primary, and ignores another group’s failover', async () => {
    const failovers = followSentinelFailovers(target());
    const client = track(new Redis(data.url, { maxRetriesPerRequest: 1 }));
    await new Promise((resolve) => client.once('ready', resolve));
    failovers.follow(client);
    let closes = 0;
    client.on('close', () => closes++);
    await announce('pwc-test', data.port);
    await announce('another-group', data.port + 1);
    await pause(300);
    expect(closes).toBe(0);
    expect(client.status).toBe('ready');
    failovers.close();
  });

  it('leaves alone a client that is asking a Sentinel for the primary: it is not ended', async () => {
    const failovers = followSentinelFailovers(target());
    const { port } = silent.address() as AddressInfo;
    const asking = track(
      new Redis({
        sentinels: [{ host: '127.0.0.1', port }],
        name: 'pwc-test',
        sentinelCommandTimeout: 500,
        sentinelRetryStrategy: () => 50,
        maxRetriesPerRequest: 1,
      }),
    );
    failovers.follow(asking);
    await pause(100);
    expect(asking.status).toBe('connecting');
    await announce('pwc-test', data.port);
    // Longer than one question to the silent Sentinel: dropped now, ioredis would end the client when it gives up.
    await pause(1200);
    expect(asking.status).toBe('connecting');
    failovers.close();
  });
});
