// The refusal a Redis-backed store raises when it cannot use Redis: its own code, so that neither the visitor's answer
// nor the operator's log and metrics call a Redis outage an upstream one. The cause says which way Redis failed.
import { ApiError, withReason } from '../http/api-error.ts';
import { isReconnecting, type RedisClient } from './redis-client.ts';

/** How long the panel is asked to wait: Redis is probed every 2 s, and reconnects as often. */
const RETRY_AFTER_SECONDS = 2;

export type StorageCause = 'redis_unreachable' | 'redis_command_failed';

export function storageUnavailable(cause: StorageCause): ApiError {
  return withReason(new ApiError('storage_unavailable', RETRY_AFTER_SECONDS), cause);
}

/** The cause when a command has just failed: Redis known to be away (or hung), or this one command failing. */
export function storageCauseOf(client: RedisClient): StorageCause {
  return isReconnecting(client) ? 'redis_unreachable' : 'redis_command_failed';
}
