// The state all instances share: without it each instance keeps its own, in memory. One Redis by its address
// (REDIS_URL), or a group that Redis Sentinel watches (REDIS_SENTINELS and the REDIS_* settings that go with it),
// never both.
import { z } from 'zod';
import type { RedisTarget } from '../shared-state/redis-target.ts';
import { parseSentinelAddresses } from './sentinel-addresses.ts';
import { group, optionalFlag, optionalText, parsed, type Refuse, type Values } from './values.ts';

/** The name Sentinel's example configuration gives its group, and the one most deployments keep. */
export const DEFAULT_MASTER_NAME = 'mymaster';

const fields = {
  redisUrl: optionalText('REDIS_URL', z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' })),
  redisSentinels: parsed(
    'REDIS_SENTINELS',
    z
      .string()
      .optional()
      .transform((value, context) => {
        if (value === undefined) return undefined;
        const addresses = parseSentinelAddresses(value);
        if ('addresses' in addresses) return addresses.addresses;
        context.addIssue({ code: 'custom', message: addresses.refused });
        return z.NEVER;
      }),
  ),
  redisSentinelMasterName: optionalText(
    'REDIS_SENTINEL_MASTER_NAME',
    z
      .string()
      .regex(
        /^[A-Za-z0-9._-]{1,100}$/,
        "must be the group's name in the Sentinels' `sentinel monitor` line: 1 to 100 letters, digits, dots, dashes or underscores",
      ),
  ),
  redisUsername: optionalText(
    'REDIS_USERNAME',
    z.string().regex(/^\S{1,256}$/, 'must be an ACL user name: no spaces, at most 256 characters'),
  ),
  redisPassword: optionalText('REDIS_PASSWORD', z.string()),
  redisSentinelPassword: optionalText('REDIS_SENTINEL_PASSWORD', z.string()),
  redisTls: optionalFlag('REDIS_TLS'),
  redisSentinelTls: optionalFlag('REDIS_SENTINEL_TLS'),
};

type SharedStateValues = Values<typeof fields>;

/** The settings that mean something only beside REDIS_SENTINELS: with REDIS_URL, the URL carries them. */
const SENTINEL_ONLY = [
  'redisSentinelMasterName',
  'redisUsername',
  'redisPassword',
  'redisSentinelPassword',
  'redisTls',
  'redisSentinelTls',
] as const;

/** Which Redis the settings name, or why they name none clearly (a sentence for the start's refusal). */
function redisTargetOf(env: SharedStateValues, refuse: Refuse): RedisTarget | null {
  if (env.redisUrl !== undefined && env.redisSentinels !== undefined)
    refuse(
      'REDIS_URL and REDIS_SENTINELS both name the Redis: set one (with Sentinel the primary is whichever node the Sentinels name).',
    );
  if (env.redisSentinels === undefined) {
    const stray = SENTINEL_ONLY.filter((name) => env[name] !== undefined).map((name) => fields[name].facts.variable);
    if (stray.length > 0)
      refuse(
        `${stray.join(', ')} ${stray.length === 1 ? 'goes' : 'go'} with REDIS_SENTINELS; with REDIS_URL put the user and password in the URL (redis://USER:PASSWORD@host:6379) and use rediss:// for TLS.`,
      );
    return env.redisUrl ?? null;
  }
  if (env.redisUsername !== undefined && env.redisPassword === undefined)
    refuse('REDIS_USERNAME needs REDIS_PASSWORD: an ACL user signs in with its password.');
  const tls = env.redisTls ?? false;
  return {
    sentinels: env.redisSentinels,
    masterName: env.redisSentinelMasterName ?? DEFAULT_MASTER_NAME,
    username: env.redisUsername ?? null,
    password: env.redisPassword ?? null,
    sentinelPassword: env.redisSentinelPassword ?? null,
    tls,
    // Sentinels usually take TLS when the data nodes do; a Sentinel password must not travel in the clear because
    // one setting was forgotten.
    sentinelTls: env.redisSentinelTls ?? tls,
  };
}

export const sharedState = group('Shared state', fields, (values, refuse) => ({
  /** Redis (or Valkey) shared by all instances: idempotency records, quotas, retired handles. null: in memory. */
  redis: redisTargetOf(values, refuse),
}));
