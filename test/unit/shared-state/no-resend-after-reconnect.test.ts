// A Redis command whose answer was lost has an unknown outcome: Redis may have run it. The relay's client has already
// failed it (its timeout) and the relay has answered the visitor; after reconnecting it must not write that command
// again. Between the client and a real redis-server, a TCP proxy passes the commands on and swallows Redis's answers
// while told to, then drops the connection, as a network that breaks mid-answer does.
import { createServer, type Server, type Socket, connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { createJsonLogger } from '../../../src/relay/log.ts';
import { createRedisClient, type RedisClient } from '../../../src/relay/shared-state/redis-client.ts';
import { startTestRedis, type TestRedis } from '../../support/redis-server.ts';

let redis: TestRedis;
let proxy: Server;
let swallowAnswers = false;
const links: Socket[] = [];

beforeAll(async () => {
  redis = await startTestRedis();
  const target = new URL(redis.url);
  proxy = createServer((client) => {
    const server = connect(Number(target.port), target.hostname);
    links.push(client, server);
    client.on('data', (chunk) => server.write(chunk));
    server.on('data', (chunk) => swallowAnswers || client.write(chunk));
    const end = () => {
      client.destroy();
      server.destroy();
    };
    client.on('close', end).on('error', end);
    server.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  for (const socket of links) socket.destroy();
  await new Promise((resolve) => proxy?.close(resolve));
  await redis?.close();
});

it('a command whose answer was lost is not written again after the client reconnects', async () => {
  const { port } = proxy.address() as AddressInfo;
  const client: RedisClient = createRedisClient(
    `redis://127.0.0.1:${port}`,
    createJsonLogger(() => {}),
  );
  const direct = new Redis(redis.url);
  try {
    await client.ping();
    swallowAnswers = true;
    // Redis runs it; its answer never arrives, so the client fails it at its timeout.
    await expect(client.incr('pwc:test:counter')).rejects.toThrow();
    for (const socket of links.splice(0)) socket.destroy();
    swallowAnswers = false;
    // The client reconnects by itself and is usable again.
    await expect.poll(() => client.ping().catch(() => null), { timeout: 10_000, interval: 200 }).toBe('PONG');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await direct.get('pwc:test:counter')).toBe('1');
  } finally {
    client.disconnect();
    direct.disconnect();
  }
}, 30_000);
