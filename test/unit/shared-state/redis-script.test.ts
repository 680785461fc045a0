// A store's script goes by its SHA1 once a connection has had its text, and still runs on a Redis that forgot it
// (SCRIPT FLUSH, as after a restart or a failover to a node that never ran it): NOSCRIPT runs nothing, and the text
// is sent then.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { redisScript } from '../../../src/relay/shared-state/redis-script.ts';
import { startTestRedis, type TestRedis } from '../../support/redis-server.ts';

let redis: TestRedis;
let client: Redis;
let monitor: Redis;
beforeAll(async () => {
  redis = await startTestRedis();
  client = new Redis(redis.url);
  await client.ping();
  monitor = await new Redis(redis.url).monitor();
});
afterAll(async () => {
  monitor?.disconnect();
  client?.disconnect();
  await redis?.close();
});

const incrementBy = redisScript("return redis.call('incrby', KEYS[1], ARGV[1])");

it('sends the text once per connection, then the SHA1, and the text again after Redis forgot the script', async () => {
  const heard: string[] = [];
  const listener = (_time: string, args: string[], source: string) => {
    if (source !== 'lua') heard.push(args[0]!.toLowerCase());
  };
  monitor.on('monitor', listener);
  expect(await incrementBy(client, ['counter'], 2)).toBe(2);
  expect(await incrementBy(client, ['counter'], 3)).toBe(5);
  await client.script('FLUSH');
  expect(await incrementBy(client, ['counter'], 4)).toBe(9);
  expect(await incrementBy(client, ['counter'], 1)).toBe(10);
  await new Promise((resolve) => setTimeout(resolve, 100));
  monitor.off('monitor', listener);
  expect(heard.filter((name) => name.startsWith('eval'))).toEqual(['eval', 'evalsha', 'evalsha', 'eval', 'evalsha']);
});
