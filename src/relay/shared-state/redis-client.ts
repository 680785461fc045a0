// The one Redis (or Valkey) connection of a relay instance, shared by every store that must be the same on all
// instances: idempotency records, quotas, retired handles. ioredis is the maintained client with reconnection,
// Lua scripting and TLS (rediss://) built in.
import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from '../log.ts';
import { noMetrics, type RelayMetrics } from '../metrics/metrics.ts';
import { connectionOptions, type RedisTarget, redisTargetName } from './redis-target.ts';
import { followSentinelFailovers } from './sentinel-failovers.ts';
import { coalesceWrites } from './coalesced-writes.ts';

export type RedisClient = Redis;

/** How often the relay asks Redis whether it still answers, and how long it waits for the answer. */
export const REDIS_PROBE_INTERVAL_MS = 2_000;
export const REDIS_PROBE_TIMEOUT_MS = 1_000;

/** Set while Redis may be hung: marked by the probe when a PING gets no answer in time. */
const unresponsive = new WeakSet<RedisClient>();

/**
 * A key the relay keeps in Redis for as long as Redis keeps its data: found missing after a reconnection, it says
 * Redis came back without the relay's keys (restarted without persistence, failed over to an empty replica, flushed).
 */
export const PRESENCE_KEY = 'pwc:present';

/**
 * A client that fails soon while Redis is unreachable (every command gives up after a second, and after one failed
 * reconnection), so a send is refused as storage unavailable (storage-error.ts) and the panel retries; it reconnects
 * by itself, with Sentinel to whichever node the Sentinels name primary by then. Commands issued while it first
 * connects wait for the connection rather than fail.
 */
export function createRedisClient(
  target: RedisTarget,
  logger: Logger,
  metrics: Pick<RelayMetrics, 'redisUp' | 'redisCommandError' | 'redisPrimaryChanged'> = noMetrics,
): RedisClient {
  const options: RedisOptions = {
    maxRetriesPerRequest: 1,
    commandTimeout: 1_000,
    // A command written before the connection dropped, and never answered, has an unknown outcome: its caller has
    // already been told it failed (the timeout above) and answered the visitor. ioredis would write it again after
    // reconnecting; the relay never repeats an attempt whose outcome is unknown.
    autoResendUnfulfilledCommands: false,
    // CLIENT SETINFO, which ioredis sends on connecting, is an unknown command before Redis 7.2: a failure on every
    // healthy connection, counted as a command error. The relay does not need its name in CLIENT LIST.
    disableClientInfo: true,
    connectTimeout: 2_000,
    // Reconnect quickly at first, then every 2 s while Redis is away.
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  };
  const client =
    typeof target === 'string' ? new Redis(target, options) : new Redis({ ...options, ...connectionOptions(target) });
  if (typeof target !== 'string') {
    // Every connection of the relay to its Redis follows a failover, the event bus's subscriber (a duplicate of this
    // client) included.
    const failovers = followSentinelFailovers(target);
    failovers.follow(client);
    const duplicate = client.duplicate.bind(client);
    client.duplicate = (override) => {
      const copy = duplicate(override);
      failovers.follow(copy);
      return copy;
    };
  }
  const name = redisTargetName(target);
  // One line when Redis is lost and one when it is back, however many reconnections fail in between (without a
  // listener ioredis would print each of them).
  let state: 'connecting' | 'up' | 'lost' = 'connecting';
  /** With Sentinel, the primary this client last reached, so that the line at its return says whether it moved. */
  let primary: string | null = null;
  const lost = () => {
    if (state === 'lost') return;
    state = 'lost';
    metrics.redisUp(false);
    logger.warn(
      `Redis (${name}) is unreachable: sends and creates are refused with Retry-After, quotas are not enforced.`,
      { redis: 'lost' },
    );
  };
  client.on('error', lost);
  client.on('close', () => state === 'up' && lost());
  client.on('ready', () => {
    const cameBack = state === 'lost';
    unresponsive.delete(client);
    const reached = typeof target === 'string' ? null : remoteAddress(client);
    const moved = reached !== null && primary !== null && reached !== primary;
    if (reached !== null) primary = reached;
    if (moved) metrics.redisPrimaryChanged();
    if (cameBack || moved)
      logger.info(
        moved ? `Redis (${name}) is back, on a new primary (a failover).` : `Redis (${name}) is back.`,
        reached === null ? { redis: 'back' } : { redis: 'back', primary: reached },
      );
    state = 'up';
    metrics.redisUp(true);
    // NX answers OK only when the key was missing: after a reconnection, that is Redis without the relay's keys.
    void client.set(PRESENCE_KEY, '1', 'NX').then(
      (written) => {
        if (cameBack && written === 'OK') {
          logger.warn(
            `Redis (${name}) came back without the relay's keys (restarted without persistence, an empty replica, or flushed): open chats end and idempotency records are gone.`,
            { redis: 'data_lost' },
          );
        }
      },
      () => {},
    );
  });
  // A hung Redis (stopped, swapping, a network that drops packets silently) keeps its connection open and the client
  // "ready": only an answer proves it is there. A PING without an answer in time marks it down until one comes.
  let probing = false;
  const probe = setInterval(() => {
    if (probing || client.status !== 'ready') return;
    probing = true;
    void redisAnswers(client, REDIS_PROBE_TIMEOUT_MS).then((answers) => {
      probing = false;
      if (answers && unresponsive.has(client)) {
        unresponsive.delete(client);
        logger.info(`Redis (${name}) answers again.`, { redis: 'back' });
        state = 'up';
        metrics.redisUp(true);
      } else if (!answers && client.status === 'ready' && !unresponsive.has(client)) {
        unresponsive.add(client);
        state = 'lost';
        metrics.redisUp(false);
        logger.warn(
          `Redis (${name}) does not answer within ${REDIS_PROBE_TIMEOUT_MS} ms: sends and creates are refused with Retry-After, quotas are not enforced.`,
          { redis: 'hung' },
        );
      }
    });
  }, REDIS_PROBE_INTERVAL_MS);
  probe.unref();
  client.once('end', () => clearInterval(probe));
  // Every command goes through sendCommand: a failed one (Redis away, a timeout, a refusal) is counted.
  const sendCommand = client.sendCommand.bind(client);
  client.sendCommand = (command, stream) => {
    command.promise.catch(() => metrics.redisCommandError());
    return sendCommand(command, stream);
  };
  coalesceWrites(client);
  metrics.redisUp(false);
  return client;
}

/** The address of the node the client is connected to, as `host:port` (`[v6]:port`); null when unknown. */
function remoteAddress(client: RedisClient): string | null {
  const host = client.stream?.remoteAddress;
  const port = client.stream?.remotePort;
  if (host === undefined || port === undefined) return null;
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * True while the client has lost Redis and is trying to get it back: callers then answer at once (a quota fails
 * open, a send is refused) instead of making every request wait for a command timeout. While it first connects,
 * commands wait for the connection instead.
 */
export function isReconnecting(client: RedisClient): boolean {
  return (
    client.status === 'reconnecting' || client.status === 'close' || client.status === 'end' || unresponsive.has(client)
  );
}

/** Whether Redis answers a PING within `timeoutMs`, for /readyz. */
export async function redisAnswers(client: RedisClient, timeoutMs = 500): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const pong = await Promise.race([
      client.ping(),
      new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), timeoutMs))),
    ]);
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
