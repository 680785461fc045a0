// The one Redis (or Valkey) connection of a relay instance, shared by every store that must be the same on all
// instances: idempotency records, quotas, retired handles. ioredis is the maintained client with reconnection,
// Lua scripting and TLS (rediss://) built in.
import { Redis } from 'ioredis';
import type { Logger } from '../log.ts';
import { noMetrics, type RelayMetrics } from '../metrics/metrics.ts';

export type RedisClient = Redis;

/**
 * A client that fails soon while Redis is unreachable (every command gives up after a second, and after one failed
 * reconnection), so a send answers `upstream_unavailable` with Retry-After and the panel retries; it reconnects by
 * itself. Commands issued while it first connects wait for the connection rather than fail.
 */
export function createRedisClient(url: string, logger: Logger, metrics: Pick<RelayMetrics, 'redisUp' | 'redisCommandError'> = noMetrics): RedisClient {
  const client = new Redis(url, {
    maxRetriesPerRequest: 1,
    commandTimeout: 1_000,
    connectTimeout: 2_000,
    // Reconnect quickly at first, then every 2 s while Redis is away.
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  // One line when Redis is lost and one when it is back, however many reconnections fail in between (without a
  // listener ioredis would print each of them).
  let state: 'connecting' | 'up' | 'lost' = 'connecting';
  const lost = () => {
    if (state === 'lost') return;
    state = 'lost';
    metrics.redisUp(false);
    logger.warn('Redis (REDIS_URL) is unreachable: sends and creates are refused with Retry-After, quotas are not enforced.', { redis: 'lost' });
  };
  client.on('error', lost);
  client.on('close', () => state === 'up' && lost());
  client.on('ready', () => {
    if (state === 'lost') logger.info('Redis (REDIS_URL) is back.', { redis: 'back' });
    state = 'up';
    metrics.redisUp(true);
  });
  // Every command goes through sendCommand: a failed one (Redis away, a timeout, a refusal) is counted.
  const sendCommand = client.sendCommand.bind(client);
  client.sendCommand = (command, stream) => {
    command.promise.catch(() => metrics.redisCommandError());
    return sendCommand(command, stream);
  };
  metrics.redisUp(false);
  return client;
}

/**
 * True while the client has lost Redis and is trying to get it back: callers then answer at once (a quota fails
 * open, a send is refused) instead of making every request wait for a command timeout. While it first connects,
 * commands wait for the connection instead.
 */
export function isReconnecting(client: RedisClient): boolean {
  return client.status === 'reconnecting' || client.status === 'close' || client.status === 'end';
}

/** Whether Redis answers a PING within `timeoutMs`, for /readyz. */
export async function redisAnswers(client: RedisClient, timeoutMs = 500): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const pong = await Promise.race([client.ping(), new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), timeoutMs)))]);
    return pong === 'PONG';
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** A warning that is logged at most once a minute, however often it happens (not once per request). */
export function warnAtMostEveryMinute(logger: Logger, now: () => number = Date.now): (message: string) => void {
  let lastAt = Number.NEGATIVE_INFINITY;
  return (message) => {
    if (now() - lastAt < 60_000) return;
    lastAt = now();
    logger.warn(message);
  };
}
