// What a store says when it cannot do what was asked, in storage's own words: a store knows Redis, not HTTP. The
// routes decide what a browser hears (http/storage-errors.ts), so that neither the visitor's answer nor the operator's
// log and metrics call a Redis outage an upstream one.
import { isReconnecting, type RedisClient } from './redis-client.ts';

/**
 * `unavailable`: the store could not be used, so nothing was done and asking again later is safe.
 * `conflict`: the record is held by another writer (an attempt with the same key, on any instance) that did not
 * finish while this one waited.
 */
export type StorageErrorCode = 'unavailable' | 'conflict';

/** Which way the store failed, for the operator's log: fixed words, never a key or a value. */
export type StorageCause =
  | 'redis_unreachable'
  | 'redis_command_failed'
  | 'record_unreadable'
  | 'record_held_by_another_attempt';

export class StorageError extends Error {
  constructor(
    readonly code: StorageErrorCode,
    readonly reason: StorageCause,
  ) {
    super(`storage ${code}: ${reason}`);
    this.name = 'StorageError';
  }
}

export function storageUnavailable(reason: Exclude<StorageCause, 'record_held_by_another_attempt'>): StorageError {
  return new StorageError('unavailable', reason);
}

export function storageConflict(): StorageError {
  return new StorageError('conflict', 'record_held_by_another_attempt');
}

/**
 * The cause when a command has just failed: Redis known to be away (or hung), or this one command failing. Only a
 * client that is connected and ready can have a single command fail: while Redis is away the client goes round
 * reconnecting, connecting and closing, and a failure seen during any of those is Redis being unreachable.
 */
export function storageCauseOf(client: RedisClient): 'redis_unreachable' | 'redis_command_failed' {
  return client.status !== 'ready' || isReconnecting(client) ? 'redis_unreachable' : 'redis_command_failed';
}
