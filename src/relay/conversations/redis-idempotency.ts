// Idempotency records every relay instance sees, in Redis: a retry that a load balancer sends to another instance
// finds the first attempt's record. A record is first a lease ("being sent by one instance"), then the result, kept
// for `ttlMs`. The lease is short and its owner renews it while the send runs, so when an instance dies (kill -9, out
// of memory) its lease runs out within seconds and a retry takes over; the send path then learns from the attempt's
// own record whether the dead attempt stored anything (deliver-once.ts). A duplicate that arrives while the first is
// in flight waits for its result; the relay's request deadline bounds that wait, and the panel retries after
// `upstream_timeout`. A result is kept sealed (record-seal.ts), under a digest of its scope and Idempotency-Key: Redis
// holds no upstream id, no handle and no key in clear.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { isReconnecting, type RedisClient } from '../shared-state/redis-client.ts';
import { digest } from './digest.ts';
import { storageCauseOf, storageConflict, storageUnavailable } from '../shared-state/storage-error.ts';
import type { IdempotencyStore, IdempotentOutcome, WorkRecord } from './idempotency.ts';
import type { RecordSealer } from './record-seal.ts';
import { redisScript } from '../shared-state/redis-script.ts';

export interface RedisIdempotencyOptions<T> {
  client: RedisClient;
  /** Parses a stored result: what comes back from Redis is a boundary like any other. */
  resultSchema: z.ZodType<T>;
  ttlMs?: number;
  /** Keeps kinds of records apart (message sends, conversation creations). */
  keyPrefix?: string;
  /** Seals each result under its scope and Idempotency-Key, so what Redis holds answers only that request. */
  sealer: RecordSealer;
  /**
   * How long a lease lives unless its owner renews it (every third of it, while the send runs): how soon a retry can
   * take over from an instance that died.
   */
  leaseMs?: number;
  /** How often a waiting duplicate looks again. */
  pollMs?: number;
  /**
   * How long a duplicate waits for the first attempt's result before it is answered "try again": the relay's request
   * deadline, since past it the browser has its answer (upstream_timeout) and no one is waiting any more.
   */
  waitMs?: number;
  /** Called when a send went through but its record could not be written (Redis went away meanwhile). */
  onRecordLost?: () => void;
}

// Deletes the lease only if it is still this attempt's: a lease that expired and was taken by a retry stays.
const RELEASE_IF_OWNER = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";
// Extends the lease only if it is still this attempt's.
const RENEW_IF_OWNER =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0";

// Takes the lease unless a record holds the key, and with it keeps the work's own record (a send's attempt,
// deliver-once.ts) unless one is there: so the attempt is on record before anything goes upstream, in the one round
// trip that takes the key. Answers
// {0, the record that was there or ''} when the key was taken, {1, the record that holds the key} otherwise ({1}:
// it went meanwhile).
const TAKE_AND_RECORD =
  "if redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then " +
  "local kept = redis.call('get', KEYS[2]) " +
  "if not kept then redis.call('set', KEYS[2], ARGV[3], 'PX', ARGV[4]) end " +
  "return {0, kept or ''} end " +
  "return {1, redis.call('get', KEYS[1])}";

// Keeps the result under the key, forgets the work's record and marks its answer given: the step after the send, atomic
// and one round trip.
const KEEP_RESULT =
  "redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) redis.call('del', KEYS[2]) " +
  "redis.call('set', KEYS[3], '1', 'PX', ARGV[3]) return 1";

const takeAndRecord = redisScript(TAKE_AND_RECORD);
const renewIfOwner = redisScript(RENEW_IF_OWNER);
const releaseIfOwner = redisScript(RELEASE_IF_OWNER);
const keepResult = redisScript(KEEP_RESULT);

/** The message sends' records; other kinds pass their own prefix. */
export const SEND_KEY_PREFIX = 'pwc:idem:';
export const DEFAULT_LEASE_MS = 5_000;

export function createRedisIdempotencyStore<T>({
  client,
  resultSchema,
  ttlMs = 24 * 60 * 60 * 1000,
  keyPrefix = SEND_KEY_PREFIX,
  sealer,
  leaseMs = DEFAULT_LEASE_MS,
  pollMs = 100,
  waitMs = 8_000,
  onRecordLost = () => {},
}: RedisIdempotencyOptions<T>): IdempotencyStore<T> {
  const recordSchema = z.discriminatedUnion('state', [
    z.object({ state: z.literal('sending'), fingerprint: z.string(), owner: z.string() }),
    z.object({ state: z.literal('sent'), fingerprint: z.string(), sealed: z.string() }),
  ]);

  async function redis<R>(command: () => Promise<R>): Promise<R> {
    if (isReconnecting(client)) throw storageUnavailable('redis_unreachable');
    try {
      return await command();
    } catch {
      throw storageUnavailable(storageCauseOf(client));
    }
  }

  /** Takes the lease (null), or answers the record that holds the key (undefined: it went between the two calls). */
  async function takeLease(id: string, lease: string): Promise<string | null | undefined> {
    if ((await redis(() => client.set(id, lease, 'PX', leaseMs, 'NX'))) === 'OK') return null;
    return (await redis(() => client.get(id))) ?? undefined;
  }

  /**
   * Takes the lease and keeps the work's record in one step: what was kept under the record's key before (null: the
   * lease is taken), or the record that holds the key (a string), or undefined (it went meanwhile).
   */
  async function takeLeaseAndRecord<E>(
    id: string,
    lease: string,
    work: WorkRecord<T, E>,
  ): Promise<{ earlier: E | null } | string | undefined> {
    const answer = await redis(() => takeAndRecord(client, [id, work.key], lease, leaseMs, work.value, work.ttlMs));
    if (!Array.isArray(answer)) throw storageUnavailable('record_unreadable');
    const [taken, stored] = answer as [number, string | undefined];
    if (taken === 0) return { earlier: stored ? work.earlier(stored) : null };
    return typeof stored === 'string' ? stored : undefined;
  }

  return {
    async run(scope, key, body, send, onWait, workRecord): Promise<IdempotentOutcome<T>> {
      // Filed under a digest of the scope (an upstream conversation id, or a visitor's address and configuration) and
      // the key: Redis holds neither, nor the key, which a visitor chose and which opens a create's conversation.
      const id = `${keyPrefix}${digest(`${scope}\u0000${key}`)}`;
      const fingerprint = digest(body);
      const lease = JSON.stringify({ state: 'sending', fingerprint, owner: randomUUID() });
      const work = workRecord?.(fingerprint);
      const waitUntil = Date.now() + waitMs;
      let recorded: { earlier: NonNullable<Parameters<typeof send>[1]>['earlier'] } | undefined;
      for (;;) {
        const taken = work === undefined ? await takeLease(id, lease) : await takeLeaseAndRecord(id, lease, work);
        if (taken !== null && typeof taken === 'object') {
          recorded = taken;
          break;
        }
        const stored = taken;
        if (stored === null) break;
        // Gone between the two calls (the first attempt failed and released it, or its lease ran out): try again.
        if (stored === undefined) continue;
        const record = parseRecord(stored, scope, key);
        // Not a record this store can open (another secret, or damaged): nothing was sent, a retry is safe.
        if (record === null) throw storageUnavailable('record_unreadable');
        if (record.fingerprint !== fingerprint) return { kind: 'conflict' };
        if (record.state === 'sent') return { kind: 'result', value: record.result, replayed: true };
        if (Date.now() >= waitUntil) throw storageConflict();
        onWait?.();
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }

      // A renewal that fails (Redis away for a moment) is tried again at the next tick; if the lease runs out all the
      // same, a retry that takes over waits for this attempt to settle before it reads back (deliver-once.ts).
      const renewal = setInterval(
        () => void renewIfOwner(client, [id], lease, leaseMs).catch(() => undefined),
        Math.max(1, Math.floor(leaseMs / 3)),
      );
      renewal.unref();
      let result: T;
      try {
        result = await send(fingerprint, recorded);
      } catch (error) {
        // Released, so the visitor's retry really sends; if Redis is away, the lease expires by itself.
        await releaseIfOwner(client, [id], lease).catch(() => undefined);
        throw error;
      } finally {
        clearInterval(renewal);
      }
      // The message is with the service now: answer it even if the record cannot be written, rather than invite a
      // retry that would send it again.
      const sealed = sealer.seal(scope, key, JSON.stringify(result));
      const sent = JSON.stringify({ state: 'sent', fingerprint, sealed });
      if (work === undefined || recorded === undefined) {
        await client.set(id, sent, 'PX', ttlMs).catch(onRecordLost);
        return { kind: 'result', value: result };
      }
      // The work's record is answered in the same step: its attempt forgotten, the result's id marked as given.
      await keepResult(client, [id, work.key, work.answeredKey(result)], sent, ttlMs, work.ttlMs).catch(onRecordLost);
      return { kind: 'result', value: result };
    },
  };

  /** The record, its result opened; null when it is not one this store wrote (or not for this scope and key). */
  function parseRecord(
    stored: string,
    scope: string,
    key: string,
  ): { state: 'sending'; fingerprint: string } | { state: 'sent'; fingerprint: string; result: T } | null {
    let value: unknown;
    try {
      value = JSON.parse(stored);
    } catch {
      return null;
    }
    const parsed = recordSchema.safeParse(value);
    if (!parsed.success) return null;
    if (parsed.data.state === 'sending') return parsed.data;
    const opened = sealer.open(scope, key, parsed.data.sealed);
    if (opened === null) return null;
    try {
      const result = resultSchema.safeParse(JSON.parse(opened));
      return result.success ? { state: 'sent', fingerprint: parsed.data.fingerprint, result: result.data } : null;
    } catch {
      return null;
    }
  }
}
