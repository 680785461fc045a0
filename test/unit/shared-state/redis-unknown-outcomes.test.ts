// The attempt records' two combined steps on a real redis-server: a send keeps its attempt unless one is kept already
// (which it is answered instead, unchanged), and an answered send forgets its attempt and claims its message at once.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createRedisUnknownOutcomeStore } from '../../../src/relay/conversations/redis-unknown-outcomes.ts';
import { startTestRedis, type TestRedis } from '../../support/redis-server.ts';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.close();
});

it('keeps the first attempt, answers it to the next, and forgets it when answered', async () => {
  const store = createRedisUnknownOutcomeStore(redis.client);
  const first = { bodyHash: 'h1', startedAt: 1_000, settlesBy: 16_000 };
  const second = { bodyHash: 'h1', startedAt: 9_000, settlesBy: 24_000 };
  expect(await store.rememberUnlessKept('conv-a', 'key-1', first)).toBeNull();
  expect(await store.rememberUnlessKept('conv-a', 'key-1', second)).toEqual(first);
  expect(await store.get('conv-a', 'key-1')).toEqual(first);
  expect(await store.isClaimed('conv-a', 'msg-1')).toBe(false);
  await store.answered('conv-a', 'key-1', 'msg-1');
  expect(await store.get('conv-a', 'key-1')).toBeNull();
  expect(await store.isClaimed('conv-a', 'msg-1')).toBe(true);
  expect(await store.isClaimed('conv-b', 'msg-1')).toBe(false);
});
