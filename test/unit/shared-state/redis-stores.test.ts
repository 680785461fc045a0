// The Redis kinds of the relay's stores, against a real redis-server: what two instances see is one state.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisSharedState, type SharedState } from '../../../src/relay/stores.ts';
import { createJsonLogger } from '../../../src/relay/log.ts';
import { StorageError } from '../../../src/relay/shared-state/storage-error.ts';
import { apiErrorFromStorage } from '../../../src/relay/http/storage-errors.ts';
import type { SentRecord } from '../../../src/relay/conversations/sent-record.ts';
import { createRecordSealer } from '../../../src/relay/conversations/record-seal.ts';
import { startTestRedis, type TestRedis } from '../../support/redis-server.ts';

const sealer = createRecordSealer(new Uint8Array(32), 'sent-record');

let redis: TestRedis;
const warnings: string[] = [];
const logger = createJsonLogger((line) => warnings.push(line));
const open: SharedState[] = [];
/** A relay instance's stores: each call is another instance with its own connection. */
const instance = () => {
  const shared = createRedisSharedState(redis.url, logger);
  open.push(shared);
  return shared.stores;
};

beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await Promise.all(open.map((shared) => shared.close()));
  await redis?.close();
});

let nextId = 0;
const record = (): SentRecord => ({
  id: `m${++nextId}`,
  conversation: 'c1',
  sequence: nextId,
  sender: 'visitor',
  author_name: '',
  created_at: '2026-11-23T00:00:00Z',
});

describe('idempotency records in Redis', () => {
  it('a retry on another instance answers the first send’s result, and sends nothing again', async () => {
    const [a, b] = [instance(), instance()];
    let sends = 0;
    const sent = record();
    const first = await a.idempotency.run('conv-1', 'key-aaaaaaaa', 'hello', async () => (sends++, sent));
    const retry = await b.idempotency.run('conv-1', 'key-aaaaaaaa', 'hello', async () => (sends++, record()));
    expect(first).toEqual({ kind: 'result', value: sent });
    // Answered from the record, and said so (counted as a replay in metrics).
    expect(retry).toEqual({ kind: 'result', value: sent, replayed: true });
    expect(sends).toBe(1);
  });

  it('the same key sent to two instances at the same moment sends once; both answer the one result', async () => {
    const [a, b] = [instance(), instance()];
    let sends = 0;
    const slowSend = async () => {
      sends++;
      await new Promise((resolve) => setTimeout(resolve, 300));
      return record();
    };
    const [one, two] = await Promise.all([
      a.idempotency.run('conv-2', 'key-bbbbbbbb', 'hi', slowSend),
      b.idempotency.run('conv-2', 'key-bbbbbbbb', 'hi', slowSend),
    ]);
    expect(sends).toBe(1);
    // One did the send, the other waited for it and answered its result.
    expect([one, two].filter((outcome) => outcome.kind === 'result' && outcome.replayed).length).toBe(1);
    expect({ ...one, replayed: undefined }).toEqual({ ...two, replayed: undefined });
  });

  it('the same key with another body is a conflict, on any instance', async () => {
    const [a, b] = [instance(), instance()];
    await a.idempotency.run('conv-3', 'key-cccccccc', 'one text', async () => record());
    expect(await b.idempotency.run('conv-3', 'key-cccccccc', 'another text', async () => record())).toEqual({
      kind: 'conflict',
    });
  });

  it('a failed send is released, so the retry really sends', async () => {
    const [a, b] = [instance(), instance()];
    await expect(
      a.idempotency.run('conv-4', 'key-dddddddd', 'x', async () => Promise.reject(new Error('upstream down'))),
    ).rejects.toThrow('upstream down');
    let sent = false;
    await b.idempotency.run('conv-4', 'key-dddddddd', 'x', async () => {
      sent = true;
      return record();
    });
    expect(sent).toBe(true);
  });

  it('keeps neither the text, the conversation id nor the Idempotency-Key in Redis: a hash of each, and the result given', async () => {
    const a = instance();
    await a.idempotency.run('conv-secret-id', 'key-eeeeeeee', 'my tooth hurts', async () => record());
    const keys = await redis.client.keys('pwc:idem:*');
    const values = await Promise.all(keys.map((key) => redis.client.get(key)));
    const everything = keys.join() + values.join();
    expect(keys.length).toBeGreaterThan(0);
    expect(everything).not.toContain('tooth');
    expect(everything).not.toContain('conv-secret-id');
    expect(everything).not.toContain('key-eeeeeeee');
  });

  it('a crashed instance’s lease expires within its short lifetime, so the message is not stuck', async () => {
    const { createRedisIdempotencyStore } = await import('../../../src/relay/conversations/redis-idempotency.ts');
    const { sentRecordSchema } = await import('../../../src/relay/conversations/sent-record.ts');
    const { Redis } = await import('ioredis');
    const [crashingClient, client] = [new Redis(redis.url), new Redis(redis.url)];
    crashingClient.on('error', () => {});
    client.on('error', () => {});
    const crashing = createRedisIdempotencyStore({
      client: crashingClient,
      resultSchema: sentRecordSchema,
      sealer,
      leaseMs: 300,
    });
    let crashingSendStarted!: () => void;
    const started = new Promise<void>((resolve) => (crashingSendStarted = resolve));
    void crashing.run('conv-5', 'key-ffffffff', 'x', () => (crashingSendStarted(), new Promise<never>(() => {})));
    await started;
    // The "crash": the send never settles, and the instance's connection is gone, so its lease is never renewed,
    // released or replaced by a result.
    crashingClient.disconnect();
    const survivor = createRedisIdempotencyStore({
      client,
      resultSchema: sentRecordSchema,
      sealer,
      leaseMs: 300,
      pollMs: 20,
      waitMs: 2_000,
    });
    let sent = false;
    const outcome = await survivor.run('conv-5', 'key-ffffffff', 'x', async () => {
      sent = true;
      return record();
    });
    expect(sent).toBe(true);
    expect(outcome.kind).toBe('result');
    client.disconnect();
  });

  it('a live owner renews its lease, so a send that outlasts the lease is never taken over and sent twice', async () => {
    const { createRedisIdempotencyStore } = await import('../../../src/relay/conversations/redis-idempotency.ts');
    const { sentRecordSchema } = await import('../../../src/relay/conversations/sent-record.ts');
    const { Redis } = await import('ioredis');
    const client = new Redis(redis.url);
    client.on('error', () => {});
    const [owner, duplicate] = [0, 1].map(() =>
      createRedisIdempotencyStore({
        client,
        resultSchema: sentRecordSchema,
        sealer,
        leaseMs: 200,
        pollMs: 20,
        waitMs: 3_000,
      }),
    );
    let sends = 0;
    const sent = record();
    // Five lease lifetimes long: without renewal the duplicate would take the key over and send again.
    const first = owner!.run(
      'conv-renew',
      'key-rrrrrrrr',
      'x',
      async () => (sends++, await new Promise((resolve) => setTimeout(resolve, 1_000)), sent),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = await duplicate!.run('conv-renew', 'key-rrrrrrrr', 'x', async () => (sends++, record()));
    expect(await first).toEqual({ kind: 'result', value: sent });
    expect(second).toEqual({ kind: 'result', value: sent, replayed: true });
    expect(sends).toBe(1);
    client.disconnect();
  });
});

describe('a duplicate waiting for the first attempt', () => {
  it('stops waiting after its bound (the request deadline) with a retryable refusal, and sends nothing', async () => {
    const { createRedisIdempotencyStore } = await import('../../../src/relay/conversations/redis-idempotency.ts');
    const { sentRecordSchema } = await import('../../../src/relay/conversations/sent-record.ts');
    const { Redis } = await import('ioredis');
    const client = new Redis(redis.url);
    client.on('error', () => {});
    const first = createRedisIdempotencyStore({ client, resultSchema: sentRecordSchema, sealer });
    void first.run('conv-wait', 'key-wwwwwwww', 'x', () => new Promise<never>(() => {}));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const duplicate = createRedisIdempotencyStore({
      client,
      resultSchema: sentRecordSchema,
      sealer,
      waitMs: 200,
      pollMs: 20,
    });
    let sent = false;
    const started = Date.now();
    const refusal = await duplicate
      .run('conv-wait', 'key-wwwwwwww', 'x', async () => {
        sent = true;
        return record();
      })
      .catch((error: unknown) => error);
    // Storage's own words: another attempt holds the record. Never an upstream code from a store.
    expect(refusal).toBeInstanceOf(StorageError);
    expect(refusal).toMatchObject({ code: 'conflict', reason: 'record_held_by_another_attempt' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(sent).toBe(false);
    client.disconnect();
  });
});

describe('sealed records', () => {
  it("a send's result is sealed, answers only its own scope and key, and one written in clear is never answered", async () => {
    const { createRedisIdempotencyStore } = await import('../../../src/relay/conversations/redis-idempotency.ts');
    const { sentRecordSchema } = await import('../../../src/relay/conversations/sent-record.ts');
    const { Redis } = await import('ioredis');
    const client = new Redis(redis.url);
    const { digest } = await import('../../../src/relay/conversations/digest.ts');
    const store = createRedisIdempotencyStore({ client, resultSchema: sentRecordSchema, sealer });
    const sent = { ...record(), id: 'msg-sealed-canary', conversation: 'conv-sealed-canary' };
    await store.run('conv-sealed-canary', 'key-sealed-0001', 'x', async () => sent);
    const raw = (await client.get(`pwc:idem:${digest('conv-sealed-canary\u0000key-sealed-0001')}`))!;
    expect(raw).not.toContain('canary');
    expect(await store.run('conv-sealed-canary', 'key-sealed-0001', 'x', async () => record())).toEqual({
      kind: 'result',
      value: sent,
      replayed: true,
    });
    // Another secret cannot open it: refused as unreadable (the retry is told to try again), never answered wrongly.
    const stranger = createRedisIdempotencyStore({
      client,
      resultSchema: sentRecordSchema,
      sealer: createRecordSealer(new Uint8Array(32).fill(9), 'sent-record'),
    });
    const unreadable = await stranger
      .run('conv-sealed-canary', 'key-sealed-0001', 'x', async () => record())
      .catch((error: unknown) => error);
    expect(unreadable).toBeInstanceOf(StorageError);
    expect(unreadable).toMatchObject({ code: 'unavailable', reason: 'record_unreadable' });
    // A result in clear (whoever can write to Redis could plant one) is not a record this store wrote: refused as
    // unreadable, never handed to the visitor, and nothing is sent on its account.
    await client.set(
      `pwc:idem:${digest('conv-planted\u0000key-planted-0001')}`,
      JSON.stringify({ state: 'sent', fingerprint: digest('x'), result: sent }),
    );
    let sentAgain = false;
    const planted = await store
      .run('conv-planted', 'key-planted-0001', 'x', async () => {
        sentAgain = true;
        return record();
      })
      .catch((error: unknown) => error);
    expect(planted).toMatchObject({ code: 'unavailable', reason: 'record_unreadable' });
    expect(sentAgain).toBe(false);
    client.disconnect();
  });
});

describe('quotas in Redis', () => {
  it('hold across instances: 6 conversations an hour means 6 in all, then 429 with a Retry-After', async () => {
    const instances = [instance(), instance(), instance()].map((stores) =>
      stores.quota('conversations-test', 6, 60 * 60 * 1000),
    );
    const decisions = [];
    for (let index = 0; index < 9; index++) decisions.push(await instances[index % 3]!.hit('203.0.113.7'));
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(6);
    const refused = decisions.filter((decision) => !decision.allowed);
    expect(refused).toHaveLength(3);
    for (const decision of refused) expect(decision.allowed === false && decision.retryAfterSeconds).toBeGreaterThan(0);
    // Another address has its own quota.
    expect(await instances[0]!.hit('198.51.100.1')).toEqual({ allowed: true });
  });
});

describe('live and retired handles in Redis', () => {
  it('a handle retired on one instance is retired on all; one never issued, or past its expiry, is refused', async () => {
    const [a, b] = [instance(), instance()];
    await a.revocations.issue('conv-6', Date.now() + 60_000);
    await a.revocations.issue('conv-7', Date.now() + 60_000);
    await a.revocations.issue('conv-8', Date.now() + 200);
    expect(await b.revocations.isRevoked('conv-6')).toBe(false);
    await a.revocations.revoke('conv-6', Date.now() + 60_000);
    expect(await b.revocations.isRevoked('conv-6')).toBe(true);
    expect(await b.revocations.isRevoked('conv-7')).toBe(false);
    expect(await b.revocations.isRevoked('conv-never-issued')).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await b.revocations.isRevoked('conv-8')).toBe(true);
  });
});

describe('when Redis is unreachable', () => {
  it('sends are refused with a storage error (a Redis cause, not an upstream one), answered storage_unavailable with a Retry-After, nothing is sent; quotas fail open with one warning a minute; it recovers', async () => {
    const stores = instance();
    await stores.quota('while-down', 1, 60_000).hit('warm-up');
    await redis.stop();
    await expect.poll(() => stores.readiness.redis!(), { timeout: 5_000, interval: 100 }).toBe(false);
    try {
      let sent = false;
      const refusal = await stores.idempotency
        .run('conv-9', 'key-gggggggg', 'x', async () => {
          sent = true;
          return record();
        })
        .catch((error: unknown) => error);
      // The store speaks storage; the HTTP layer makes of it a storage_unavailable answer with a Retry-After.
      expect(refusal).toBeInstanceOf(StorageError);
      expect(refusal).toMatchObject({ code: 'unavailable', reason: 'redis_unreachable' });
      expect(apiErrorFromStorage(refusal as StorageError)).toMatchObject({
        code: 'storage_unavailable',
        reason: 'redis_unreachable',
      });
      expect(apiErrorFromStorage(refusal as StorageError).retryAfterSeconds).toBeGreaterThan(0);
      expect(sent).toBe(false);
      // Every store that must write refuses the same way: a live handle cannot be issued, nor an attempt recorded.
      for (const write of [
        () => stores.revocations.issue('conv-9', Date.now() + 60_000),
        () => stores.revocations.revoke('conv-9', Date.now() + 60_000),
        () => stores.unknownOutcomes.remember('conv-9', 'key-gggggggg', { bodyHash: 'h', startedAt: 0, settlesBy: 0 }),
        () => stores.unknownOutcomes.get('conv-9', 'key-gggggggg'),
      ]) {
        const error = await write().catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(StorageError);
        expect(error).toMatchObject({ code: 'unavailable', reason: 'redis_unreachable' });
      }

      warnings.length = 0;
      const quota = stores.quota('while-down', 1, 60_000);
      for (let index = 0; index < 20; index++) expect(await quota.hit('203.0.113.9')).toEqual({ allowed: true });
      // Out of reach is not lost: reads go on (fail open) while Redis is away.
      expect(await stores.revocations.isRevoked('conv-6')).toBe(false);
      expect(await stores.readiness.redis!()).toBe(false);
      // This instance's store warning (every open client of the file also logs its own connection warning, once a minute).
      const quotaWarnings = warnings.filter((line) => line.includes('retired handles not checked'));
      expect(quotaWarnings.length).toBe(1);
    } finally {
      await redis.start();
    }
    await expect.poll(() => stores.readiness.redis!(), { timeout: 10_000, interval: 200 }).toBe(true);
    const after = await stores.idempotency.run('conv-9', 'key-gggggggg', 'x', async () => record());
    expect(after.kind).toBe('result');
  }, 30_000);
});
