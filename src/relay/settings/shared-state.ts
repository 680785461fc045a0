// The state all instances share: without it each instance keeps its own, in memory.
import { z } from 'zod';

export const sharedStateSchema = z.object({
  REDIS_URL: z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' }).optional(),
});

export interface SharedStateSettings {
  /** Redis (or Valkey) shared by all instances: idempotency records, quotas, retired handles. null: in memory. */
  redisUrl: string | null;
}
