// Idempotency records every relay instance sees, in Redis: a retry that a load balancer sends to another instance
// finds the first attempt's record. A record is first a lease ("being sent by one instance", expiring by itself if
// that instance dies), then the result, kept 24 hours. A duplicate that arrives while the first is in flight waits
// for its result; the relay's request deadline bounds that wait, and the panel retries after `upstream_timeout`.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ApiError } from '../http/api-error.ts';
import { isReconnecting, type RedisClient } from '../shared-state/redis-client.ts';
import { bodyFingerprint, type IdempotencyStore, type IdempotentOutcome } from './idempotency.ts';

export interface RedisIdempotencyOptions<T> {
  client: RedisClient;
  /** Parses a stored result: what comes back from Redis is a boundary like any other. */
  resultSchema: z.ZodType<T>;
  ttlMs?: number;
  /** How long an in-flight send holds its key if its instance never finishes (crash, kill -9). */
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

const KEY_PREFIX = 'pwc:idem:';
// Deletes the lease only if it is still this attempt's: a lease that expired and was taken by a retry stays.
const RELEASE_IF_OWNER = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";

/** Redis could not be asked: nothing was sent, so the browser's retry (same key) is safe. */
const unreachable = () => new ApiError('upstream_unavailable', 2);

export function createRedisIdempotencyStore<T>({
  client,
  resultSchema,
  ttlMs = 24 * 60 * 60 * 1000,
  leaseMs = 60_000,
  pollMs = 100,
  waitMs = leaseMs,
  onRecordLost = () => {},
}: RedisIdempotencyOptions<T>): IdempotencyStore<T> {
  const recordSchema = z.discriminatedUnion('state', [
    z.object({ state: z.literal('sending'), fingerprint: z.string(), owner: z.string() }),
    z.object({ state: z.literal('sent'), fingerprint: z.string(), result: resultSchema }),
  ]);

  async function redis<R>(command: () => Promise<R>): Promise<R> {
    if (isReconnecting(client)) throw unreachable();
    try {
      return await command();
    } catch {
      throw unreachable();
    }
  }

  return {
    async run(scope, key, body, send): Promise<IdempotentOutcome<T>> {
      // The scope is an upstream conversation id: hashed, like the body, so Redis holds neither.
      const id = `${KEY_PREFIX}${bodyFingerprint(scope)}:${key}`;
      const fingerprint = bodyFingerprint(body);
      const owner = randomUUID();
      const waitUntil = Date.now() + waitMs;
      for (;;) {
        const lease = JSON.stringify({ state: 'sending', fingerprint, owner });
        if ((await redis(() => client.set(id, lease, 'PX', leaseMs, 'NX'))) === 'OK') break;
        const stored = await redis(() => client.get(id));
        // Gone between the two calls (the first attempt failed and released it, or its lease ran out): try again.
        if (stored === null) continue;
        const record = parseRecord(stored);
        if (record === null) throw unreachable();
        if (record.fingerprint !== fingerprint) return { kind: 'conflict' };
        if (record.state === 'sent') return { kind: 'result', value: record.result };
        if (Date.now() >= waitUntil) throw unreachable();
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }

      let result: T;
      try {
        result = await send();
      } catch (error) {
        // Released, so the visitor's retry really sends; if Redis is away, the lease expires by itself.
        await client.eval(RELEASE_IF_OWNER, 1, id, JSON.stringify({ state: 'sending', fingerprint, owner })).catch(() => undefined);
        throw error;
      }
      // The message is with the service now: answer it even if the record cannot be written, rather than invite a
      // retry that would send it again.
      await client.set(id, JSON.stringify({ state: 'sent', fingerprint, result }), 'PX', ttlMs).catch(onRecordLost);
      return { kind: 'result', value: result };
    },
  };

  function parseRecord(stored: string) {
    try {
      const parsed = recordSchema.safeParse(JSON.parse(stored));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }
}
