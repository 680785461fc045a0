// Which Redis the relay uses and how it connects: one address (REDIS_URL), or a group that Redis Sentinel watches
// (REDIS_SENTINELS), where the primary's address is asked of the Sentinels and changes when they fail over. Both
// become options of one ioredis client, whose own Sentinel support finds the primary, checks that the node it
// reaches is still the primary, and asks again after a failover.
import type { RedisOptions } from 'ioredis';

/** A group of Redis nodes watched by Sentinel: the relay talks to whichever node the Sentinels name primary. */
export interface RedisSentinelTarget {
  sentinels: readonly { host: string; port: number }[];
  /** The group's name in the Sentinels' configuration (`sentinel monitor <name> …`). */
  masterName: string;
  /** An ACL user on the data nodes; null: the `default` user. */
  username: string | null;
  password: string | null;
  /** The Sentinels' own password (their `requirepass`). */
  sentinelPassword: string | null;
  /** TLS to the data nodes. */
  tls: boolean;
  /** TLS to the Sentinels. */
  sentinelTls: boolean;
}

/** A `redis://` or `rediss://` URL (REDIS_URL), or a Sentinel group (REDIS_SENTINELS). */
export type RedisTarget = string | RedisSentinelTarget;

/** How a log line names the Redis: the setting that points at it, never a password or an address. */
export function redisTargetName(target: RedisTarget): string {
  return typeof target === 'string' ? 'REDIS_URL' : `REDIS_SENTINELS, master ${target.masterName}`;
}

/** Whether the relay authenticates to the data nodes. */
export function redisTargetAuthenticates(target: RedisTarget): boolean {
  return typeof target === 'string' ? new URL(target).password !== '' : target.password !== null;
}

/** A Sentinel's port when REDIS_SENTINELS names none: the one Redis ships Sentinel with. */
export const SENTINEL_DEFAULT_PORT = 26379;

/**
 * After a failover an instance learns the new primary only by asking the Sentinels again, which it does on each
 * reconnection: with Sentinel it retries more often than with one address, so that it is back soon after the
 * Sentinels name the new primary. Each attempt costs one short connection to a Sentinel.
 */
const SENTINEL_RECONNECT_CAP_MS = 500;

/** The ioredis options that reach the target, beside the relay's own timeouts (redis-client.ts). */
export function connectionOptions(target: RedisSentinelTarget): RedisOptions {
  return {
    sentinels: target.sentinels.map(({ host, port }) => ({ host, port })),
    name: target.masterName,
    // ioredis checks the role of every node it reaches (INFO) and moves on when it is not the primary: a node that
    // came back from a crash still believing itself primary is never written to.
    role: 'master',
    ...(target.username === null ? {} : { username: target.username }),
    ...(target.password === null ? {} : { password: target.password }),
    ...(target.sentinelPassword === null ? {} : { sentinelPassword: target.sentinelPassword }),
    // With Sentinel, ioredis applies `tls` to the data nodes only when enableTLSForSentinelMode says so; the Sentinels'
    // own connections take sentinelTLS.
    ...(target.tls ? { tls: {}, enableTLSForSentinelMode: true } : {}),
    ...(target.sentinelTls ? { sentinelTLS: {} } : {}),
    // Off: it can end the client for good when a failover is announced during a reconnection. sentinel-failovers.ts
    // does its work instead.
    failoverDetector: false,
    // A node that answers READONLY has been made a replica under us: reconnect, which asks the Sentinels again.
    reconnectOnError: (error) => error.message.startsWith('READONLY'),
    // A Sentinel that accepts the connection but never answers must not hold the search for the primary.
    sentinelCommandTimeout: 1_000,
    retryStrategy: (attempt) => Math.min(attempt * 100, SENTINEL_RECONNECT_CAP_MS),
    sentinelRetryStrategy: (attempt) => Math.min(attempt * 100, SENTINEL_RECONNECT_CAP_MS),
  };
}
