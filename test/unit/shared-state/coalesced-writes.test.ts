// The relay's Redis client on a real redis-server: commands issued in one turn of the event loop leave in one socket
// write (coalesced-writes.ts), each still answered on its own; so do the commands of one loop iteration's callbacks,
// while a command that follows an answer is not held back.
import type { Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createJsonLogger } from '../../../src/relay/log.ts';
import { createRedisClient, type RedisClient } from '../../../src/relay/shared-state/redis-client.ts';
import { startTestRedis, type TestRedis } from '../../support/redis-server.ts';

let redis: TestRedis;
let client: RedisClient;
beforeAll(async () => {
  redis = await startTestRedis();
  client = createRedisClient(
    redis.url,
    createJsonLogger(() => {}),
  );
  await client.ping();
});
afterAll(async () => {
  client?.disconnect();
  await redis?.close();
});

/** Counts the writes the client's socket hands to the system (one `_write`, or one `_writev` for a batch). */
function countSocketWrites(socket: Socket): { count: () => number; stop: () => void } {
  let writes = 0;
  const own = socket as unknown as Record<'_write' | '_writev', (...args: unknown[]) => unknown>;
  const write = own._write;
  const writev = own._writev;
  own._write = function (...args) {
    writes += 1;
    return write.apply(this, args);
  };
  own._writev = function (...args) {
    writes += 1;
    return writev.apply(this, args);
  };
  return {
    count: () => writes,
    stop: () => {
      own._write = write;
      own._writev = writev;
    },
  };
}

it('ten commands issued in one turn go out in one socket write, and each gets its own answer', async () => {
  await client.set('coalesce:a', 'first');
  await client.set('coalesce:b', 'second');
  const writes = countSocketWrites(client.stream as Socket);
  try {
    const answers = await Promise.all([
      ...Array.from({ length: 8 }, (_, index) => client.incr(`coalesce:counter:${index}`)),
      client.get('coalesce:a'),
      client.get('coalesce:b'),
    ]);
    expect(answers).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 'first', 'second']);
    expect(writes.count()).toBe(1);
  } finally {
    writes.stop();
  }
});

it('commands of later turns are written in their own turn, not held back', async () => {
  const writes = countSocketWrites(client.stream as Socket);
  try {
    expect(await client.incr('coalesce:later')).toBe(1);
    expect(await client.incr('coalesce:later')).toBe(2);
    expect(writes.count()).toBe(2);
  } finally {
    writes.stop();
  }
});

it('commands issued from separate callbacks of one loop iteration go out in one socket write', async () => {
  const writes = countSocketWrites(client.stream as Socket);
  try {
    // Five callbacks of one iteration's check phase, each issuing a command as a request's first step would from
    // its own socket's callback.
    const answers = await Promise.all(
      Array.from(
        { length: 5 },
        (_, index) =>
          new Promise((resolve, reject) => {
            setImmediate(() => client.incr(`coalesce:callbacks:${index}`).then(resolve, reject));
          }),
      ),
    );
    expect(answers).toEqual([1, 1, 1, 1, 1]);
    expect(writes.count()).toBe(1);
  } finally {
    writes.stop();
  }
});

it('a command that follows a Redis answer is written as that turn ends, not held for the rest of the iteration', async () => {
  const writes = countSocketWrites(client.stream as Socket);
  try {
    await client.incr('coalesce:chain');
    const before = writes.count();
    const next = client.incr('coalesce:chain');
    // A tick queued from a microtask runs after every microtask of this turn, and before the loop moves on.
    const writtenAtTurnEnd = await new Promise<number>((resolve) => {
      queueMicrotask(() => process.nextTick(() => resolve(writes.count() - before)));
    });
    expect(writtenAtTurnEnd).toBe(1);
    expect(await next).toBe(2);
  } finally {
    writes.stop();
  }
});
