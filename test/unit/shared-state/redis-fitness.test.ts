// Issue 18, point 5: the relay says at start when its Redis lacks what it needs, as far as Redis lets it see.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJsonLogger } from '../../../src/relay/log.ts';
import { redisShortcomings } from '../../../src/relay/shared-state/redis-fitness.ts';
import { createRedisSharedState } from '../../../src/relay/stores.ts';
import { startTestRedis, type TestRedis } from '../../support/redis-server.ts';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.close();
});

/** The warnings a relay instance logs in its first moments against the test server. */
async function warningsAtStart(): Promise<string[]> {
  const lines: string[] = [];
  const shared = createRedisSharedState(
    redis.url,
    createJsonLogger((line) => lines.push(line)),
  );
  try {
    await expect
      .poll(() => lines.filter((line) => line.includes('not set up as the relay needs')).length, { timeout: 5_000 })
      .toBe(1);
    // Once: no second line after a while.
    await new Promise((resolve) => setTimeout(resolve, 200));
    return lines.filter((line) => line.includes('not set up as the relay needs'));
  } finally {
    await shared.close();
  }
}

describe('the Redis the relay is given', () => {
  it('warns once at start about a server without persistence, with an eviction policy, without a password', async () => {
    // The test server runs with --save "" --appendonly no and no password.
    await redis.client.call('CONFIG', 'SET', 'maxmemory-policy', 'allkeys-lru');
    const [line] = await warningsAtStart();
    expect(JSON.parse(line!)).toMatchObject({ level: 'warn' });
    expect(line).toContain('no persistence');
    expect(line).toContain('allkeys-lru');
    expect(line).toContain('no password');
  });

  it('says nothing of what is as it should be', async () => {
    await redis.client.call('CONFIG', 'SET', 'maxmemory-policy', 'noeviction');
    await redis.client.call('CONFIG', 'SET', 'appendonly', 'yes');
    try {
      const [line] = await warningsAtStart();
      expect(line).not.toContain('persistence');
      expect(line).not.toContain('maxmemory-policy');
      expect(line).toContain('no password');
    } finally {
      await redis.client.call('CONFIG', 'SET', 'appendonly', 'no');
    }
  });

  it('with Sentinel, names the missing passwords by their settings, the Sentinels’ included', () => {
    const facts = { appendonly: 'yes', save: '', maxmemoryPolicy: 'noeviction' };
    expect(redisShortcomings({ ...facts, authenticated: true, sentinelsAuthenticated: true })).toEqual([]);
    const [data, sentinels] = redisShortcomings({ ...facts, authenticated: false, sentinelsAuthenticated: false });
    expect(data).toContain('no password (REDIS_PASSWORD)');
    expect(sentinels).toContain('no REDIS_SENTINEL_PASSWORD');
    expect(sentinels).toContain('name another primary');
  });

  it('reports nothing it cannot see (CONFIG refused, as on managed services), and nothing when all is well', () => {
    expect(redisShortcomings({ appendonly: null, save: null, maxmemoryPolicy: null, authenticated: true })).toEqual([]);
    expect(
      redisShortcomings({ appendonly: 'yes', save: '', maxmemoryPolicy: 'noeviction', authenticated: true }),
    ).toEqual([]);
    expect(
      redisShortcomings({ appendonly: 'no', save: '3600 1', maxmemoryPolicy: 'noeviction', authenticated: true }),
    ).toEqual([]);
  });
});
