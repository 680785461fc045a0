// A store's script goes by its SHA1 once a connection has had its text, and still runs on a Redis that forgot it
// (SCRIPT FLUSH, as after a restart or a failover to a node that never ran it): NOSCRIPT runs nothing, and the text
// is sent then. Any other failure of the SHA1 call (the script's own error, a timeout) may have run the script, so
// the text is not sent after it. The client is made as the relay makes it (its command timeout, its reconnection).
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createJsonLogger } from '../../../src/relay/log.ts';
import { createRedisClient, type RedisClient } from '../../../src/relay/shared-state/redis-client.ts';
import { redisScript } from '../../../src/relay/shared-state/redis-script.ts';
import { startTestRedis, type TestRedis } from '../../support/redis-server.ts';

let redis: TestRedis;
let client: RedisClient;
let admin: Redis;
let monitor: Redis;
beforeAll(async () => {
  redis = await startTestRedis();
  client = createRedisClient(
    redis.url,
    createJsonLogger(() => {}),
  );
  await client.ping();
  admin = new Redis(redis.url);
  monitor = await new Redis(redis.url).monitor();
});
afterAll(async () => {
  monitor?.disconnect();
  admin?.disconnect();
  client?.disconnect();
  await redis?.close();
});

// Each test makes its own script: a script remembers the connections it was sent on as text, so one shared between
// tests would make what a test hears depend on which tests ran before it (`--sequence.shuffle` runs them in any order).
const newIncrementBy = () => redisScript("return redis.call('incrby', KEYS[1], ARGV[1])");

let markers = 0;
/**
 * The EVAL and EVALSHA commands Redis ran while `run` ran, between two ECHOs the client sends before and after it:
 * Redis runs one connection's commands in order and the monitor reports them in that order, so the client's earlier
 * calls are reported before the first ECHO and all of `run`'s before the second.
 */
async function scriptCallsDuring(run: () => Promise<void>): Promise<string[]> {
  const start = `start-${++markers}`;
  const end = `end-${markers}`;
  const heard: string[] = [];
  let recording = false;
  let endSeen = () => {};
  const ended = new Promise<void>((resolve) => (endSeen = resolve));
  const listener = (_time: string, args: string[], source: string) => {
    const name = args[0]!.toLowerCase();
    if (name === 'echo' && args[1] === start) recording = true;
    else if (name === 'echo' && args[1] === end) endSeen();
    else if (recording && source !== 'lua' && name.startsWith('eval')) heard.push(name);
  };
  monitor.on('monitor', listener);
  try {
    await client.echo(start);
    await run();
    await client.echo(end);
    await ended;
  } finally {
    monitor.off('monitor', listener);
  }
  return heard;
}

it('sends the text once per connection, then the SHA1, and the text again after Redis forgot the script', async () => {
  const incrementBy = newIncrementBy();
  const heard = await scriptCallsDuring(async () => {
    expect(await incrementBy(client, ['counter'], 2)).toBe(2);
    expect(await incrementBy(client, ['counter'], 3)).toBe(5);
    await admin.script('FLUSH');
    expect(await incrementBy(client, ['counter'], 4)).toBe(9);
    expect(await incrementBy(client, ['counter'], 1)).toBe(10);
  });
  expect(heard).toEqual(['eval', 'evalsha', 'evalsha', 'eval', 'evalsha']);
});

it("does not send the text again after the script's own error: the script ran", async () => {
  const incrementThenFail = redisScript("redis.call('incr', KEYS[1]) return redis.error_reply('X')");
  // The connection's first call sends the text.
  await expect(incrementThenFail(client, ['failing:warm'])).rejects.toThrow('X');
  const heard = await scriptCallsDuring(async () => {
    await expect(incrementThenFail(client, ['failing'])).rejects.toThrow('X');
  });
  expect(await admin.get('failing')).toBe('1');
  expect(heard).toEqual(['evalsha']);
});

it('does not send the text again after the SHA1 call timed out: Redis may run it yet', async () => {
  const incrementBy = newIncrementBy();
  await incrementBy(client, ['paused'], 1);
  const heard = await scriptCallsDuring(async () => {
    // Longer than the client's command timeout: Redis holds the EVALSHA and runs it when the pause ends.
    await admin.client('PAUSE', 1_500, 'ALL');
    await expect(incrementBy(client, ['paused'], 1)).rejects.toThrow(/timed out/i);
  });
  // Answered after the pause: the held EVALSHA has run by now, and nothing after it.
  const moved = Number(await admin.get('paused')) - 1;
  expect(moved).toBeLessThanOrEqual(1);
  expect(heard).toEqual(['evalsha']);
}, 10_000);

it('sends the text on a new connection, to a Redis that forgot the script meanwhile', async () => {
  const incrementBy = newIncrementBy();
  await incrementBy(client, ['reconnected'], 1);
  const id = await client.client('ID');
  const back = once(client, 'ready');
  await admin.client('KILL', 'ID', String(id));
  await back;
  await admin.script('FLUSH');
  const heard = await scriptCallsDuring(async () => {
    expect(await incrementBy(client, ['reconnected'], 1)).toBe(2);
  });
  expect(heard).toEqual(['eval']);
}, 10_000);
