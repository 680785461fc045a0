// What the relay needs of its Redis (docs/deploying.md, "Running several instances"), checked once at start where Redis lets us
// see it: persistence (else a restart ends every open chat, since live handles are kept there), `noeviction` (else
// Redis under memory pressure drops idempotency records and live handles), and a password (handles' liveness and
// idempotency records must not be writable by anyone who reaches the port). With Sentinel, a password on the
// Sentinels too: whoever can talk to one can make it name another primary, and the relay would then send its Redis
// password and its records there. Managed services often hide CONFIG: what cannot be seen is not reported.
import type { Logger } from '../log.ts';
import type { RedisClient } from './redis-client.ts';
import { type RedisTarget, redisTargetAuthenticates, redisTargetName } from './redis-target.ts';

export interface RedisFacts {
  /** `appendonly` and `save` from CONFIG GET; null when CONFIG is not allowed. */
  appendonly: string | null;
  save: string | null;
  maxmemoryPolicy: string | null;
  /** Whether the connection authenticates (a password in REDIS_URL, or REDIS_PASSWORD). */
  authenticated: boolean;
  /** With Sentinel: whether the relay authenticates to the Sentinels (REDIS_SENTINEL_PASSWORD). Absent without. */
  sentinelsAuthenticated?: boolean;
}

/** The shortcomings these facts show, in words for an operator; empty when none can be seen. */
export function redisShortcomings(facts: RedisFacts): string[] {
  const found: string[] = [];
  if (facts.appendonly === 'no' && facts.save !== null && facts.save.trim() === '') {
    found.push(
      'no persistence (appendonly no, save ""): a Redis restart ends every open chat and forgets idempotency records',
    );
  }
  if (facts.maxmemoryPolicy !== null && facts.maxmemoryPolicy !== 'noeviction') {
    found.push(
      `maxmemory-policy is ${facts.maxmemoryPolicy}, not noeviction: under memory pressure Redis would drop live handles and idempotency records`,
    );
  }
  const sentinel = facts.sentinelsAuthenticated !== undefined;
  if (!facts.authenticated)
    found.push(
      `no password ${sentinel ? '(REDIS_PASSWORD)' : 'in REDIS_URL'}: anyone who reaches the port can read and change the relay's shared state`,
    );
  if (facts.sentinelsAuthenticated === false)
    found.push(
      'no REDIS_SENTINEL_PASSWORD: anyone who reaches a Sentinel can make it name another primary, to which the relay would then send its Redis password and records',
    );
  return found;
}

async function configValue(client: RedisClient, name: string): Promise<string | null> {
  try {
    const answer = (await client.call('CONFIG', 'GET', name)) as unknown;
    return Array.isArray(answer) && typeof answer[1] === 'string' ? answer[1] : null;
  } catch {
    return null;
  }
}

export async function readRedisFacts(client: RedisClient, target: RedisTarget): Promise<RedisFacts> {
  const [appendonly, save, maxmemoryPolicy] = await Promise.all([
    configValue(client, 'appendonly'),
    configValue(client, 'save'),
    configValue(client, 'maxmemory-policy'),
  ]);
  return {
    appendonly,
    save,
    maxmemoryPolicy,
    authenticated: redisTargetAuthenticates(target),
    ...(typeof target === 'string' ? {} : { sentinelsAuthenticated: target.sentinelPassword !== null }),
  };
}

/** Logs one warning when Redis is first ready and falls short of what the relay needs; nothing if it does not. */
export function warnAboutRedisOnce(client: RedisClient, target: RedisTarget, logger: Logger): void {
  client.once('ready', () => {
    void readRedisFacts(client, target).then((facts) => {
      const found = redisShortcomings(facts);
      if (found.length > 0)
        logger.warn(
          `Redis (${redisTargetName(target)}) is not set up as the relay needs (docs/deploying.md, "The Redis the relay needs"): ${found.join('; ')}.`,
        );
    });
  });
}
