// The state all instances share: without it each instance keeps its own, in memory. One Redis by its address
// (REDIS_URL), or a group that Redis Sentinel watches (REDIS_SENTINELS and the REDIS_* settings that go with it),
// never both.
import { z } from 'zod';
import type { RedisTarget } from '../shared-state/redis-target.ts';
import { parseSentinelAddresses } from './sentinel-addresses.ts';
import { optionalFlag } from './values.ts';

/** The name Sentinel's example configuration gives its group, and the one most deployments keep. */
export const DEFAULT_MASTER_NAME = 'mymaster';

export const sharedStateSchema = z.object({
  REDIS_URL: z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' }).optional(),
  REDIS_SENTINELS: z
    .string()
    .optional()
    .transform((value, context) => {
      if (value === undefined) return undefined;
      const parsed = parseSentinelAddresses(value);
      if ('addresses' in parsed) return parsed.addresses;
      context.addIssue({ code: 'custom', message: parsed.refused });
      return z.NEVER;
    }),
  REDIS_SENTINEL_MASTER_NAME: z
    .string()
    .regex(
      /^[A-Za-z0-9._-]{1,100}$/,
      "must be the group's name in the Sentinels' `sentinel monitor` line: 1 to 100 letters, digits, dots, dashes or underscores",
    )
    .optional(),
  REDIS_USERNAME: z
    .string()
    .regex(/^\S{1,256}$/, 'must be an ACL user name: no spaces, at most 256 characters')
    .optional(),
  REDIS_PASSWORD: z.string().optional(),
  REDIS_SENTINEL_PASSWORD: z.string().optional(),
  REDIS_TLS: optionalFlag,
  REDIS_SENTINEL_TLS: optionalFlag,
});

export interface SharedStateSettings {
  /** Redis (or Valkey) shared by all instances: idempotency records, quotas, retired handles. null: in memory. */
  redis: RedisTarget | null;
}

type SharedStateEnvironment = z.output<typeof sharedStateSchema>;

/** The settings that mean something only beside REDIS_SENTINELS: with REDIS_URL, the URL carries them. */
const SENTINEL_ONLY = [
  'REDIS_SENTINEL_MASTER_NAME',
  'REDIS_USERNAME',
  'REDIS_PASSWORD',
  'REDIS_SENTINEL_PASSWORD',
  'REDIS_TLS',
  'REDIS_SENTINEL_TLS',
] as const;

/** Which Redis the settings name, or why they name none clearly (a sentence for the start's refusal). */
export function redisTargetOf(env: SharedStateEnvironment): { redis: RedisTarget | null } | { refused: string } {
  if (env.REDIS_URL !== undefined && env.REDIS_SENTINELS !== undefined)
    return {
      refused:
        'REDIS_URL and REDIS_SENTINELS both name the Redis: set one (with Sentinel the primary is whichever node the Sentinels name).',
    };
  if (env.REDIS_SENTINELS === undefined) {
    const stray = SENTINEL_ONLY.filter((name) => env[name] !== undefined);
    if (stray.length > 0)
      return {
        refused: `${stray.join(', ')} ${stray.length === 1 ? 'goes' : 'go'} with REDIS_SENTINELS; with REDIS_URL put the user and password in the URL (redis://USER:PASSWORD@host:6379) and use rediss:// for TLS.`,
      };
    return { redis: env.REDIS_URL ?? null };
  }
  if (env.REDIS_USERNAME !== undefined && env.REDIS_PASSWORD === undefined)
    return { refused: 'REDIS_USERNAME needs REDIS_PASSWORD: an ACL user signs in with its password.' };
  const tls = env.REDIS_TLS ?? false;
  return {
    redis: {
      sentinels: env.REDIS_SENTINELS,
      masterName: env.REDIS_SENTINEL_MASTER_NAME ?? DEFAULT_MASTER_NAME,
      username: env.REDIS_USERNAME ?? null,
      password: env.REDIS_PASSWORD ?? null,
      sentinelPassword: env.REDIS_SENTINEL_PASSWORD ?? null,
      tls,
      // Sentinels usually take TLS when the data nodes do; a Sentinel password must not travel in the clear because
      // one setting was forgotten.
      sentinelTls: env.REDIS_SENTINEL_TLS ?? tls,
    },
  };
}
