// Storage failures as the browser may see them. A store speaks storage (shared-state/storage-error.ts); this is where
// that becomes an answer, so the answer, the request log's cause and the metrics all say it was the relay's storage.
import type { StorageError } from '../shared-state/storage-error.ts';
import { ApiError, withReason } from './api-error.ts';

/** How long the panel is asked to wait: Redis is probed every 2 s, and reconnects as often. */
const RETRY_AFTER_SECONDS = 2;

/**
 * `unavailable` is `storage_unavailable` (503) with the store's cause. `conflict` is another attempt with the same key
 * still at work, which is what the request deadline reports when it comes first: `upstream_timeout`, waiting on another
 * instance. Both ask the panel to retry with the same key, which is safe: nothing was done.
 */
export function apiErrorFromStorage(error: StorageError): ApiError {
  switch (error.code) {
    case 'unavailable':
      return withReason(new ApiError('storage_unavailable', RETRY_AFTER_SECONDS), error.reason);
    case 'conflict':
      return withReason(new ApiError('upstream_timeout', RETRY_AFTER_SECONDS), 'waiting_on_other_instance');
  }
}
