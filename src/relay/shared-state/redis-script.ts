// A Lua script that a store runs on every request, sent by its SHA1 (EVALSHA) instead of its whole text (EVAL): Redis
// keeps each script it has run. The text goes on a connection's first call (a new connection may reach a Redis that
// does not know it: a fresh start, a failover to a replica), and again after NOSCRIPT (SCRIPT FLUSH); Redis answers
// NOSCRIPT without running anything, so sending the text then repeats no attempt whose outcome is unknown, and any
// other failure (an error the script raised, a timeout, a lost connection) is not retried.
// ioredis's own defineCommand chooses text or SHA1 when it writes the command, per socket; this chooses when it is
// called, so a command queued while the client reconnects goes as EVALSHA on the new connection and relies on the
// NOSCRIPT fallback. It does so without naming a command on the shared client.
import { createHash } from 'node:crypto';
import type { RedisClient } from './redis-client.ts';

export type RedisScript = (
  client: RedisClient,
  keys: readonly string[],
  ...args: readonly (string | number)[]
) => Promise<unknown>;

/**
 * @example
 * const releaseIfOwner = redisScript("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0");
 * await releaseIfOwner(client, [leaseKey], owner);
 */
export function redisScript(lua: string): RedisScript {
  const sha = createHash('sha1').update(lua).digest('hex');
  // The connections (sockets) this script has been sent on as text.
  const sentOn = new WeakSet<object>();
  return (client, keys, ...args) => {
    const connection = client.stream;
    if (connection === undefined || !sentOn.has(connection)) {
      if (connection !== undefined) sentOn.add(connection);
      return client.eval(lua, keys.length, ...keys, ...args);
    }
    return client.evalsha(sha, keys.length, ...keys, ...args).catch((error: unknown) => {
      if (!isNoScript(error)) throw error;
      // Not ready: the connection dropped after the answer. The text would wait on the offline queue and reach Redis
      // whenever it is back, long after the caller gave up: fail now, as the stores' other commands do.
      if (client.status !== 'ready') throw error;
      return client.eval(lua, keys.length, ...keys, ...args);
    });
  };
}

/** Redis's answer that it does not know the script by that SHA1 (and so ran nothing). */
function isNoScript(error: unknown): boolean {
  // A RESP error reply begins with its error code, and ioredis makes the reply the error's message as it is.
  return error instanceof Error && error.message.startsWith('NOSCRIPT ');
}
