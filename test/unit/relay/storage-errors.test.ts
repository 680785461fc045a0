// A store's failure in storage's words becomes one answer each: the relay's storage unavailable, or another attempt
// with the same key still at work (what the request deadline reports when it comes first).
import { expect, it } from 'vitest';
import { apiErrorFromStorage } from '../../../src/relay/http/storage-errors.ts';
import { storageConflict, storageUnavailable } from '../../../src/relay/shared-state/storage-error.ts';

it('unavailable is storage_unavailable with the store cause and a Retry-After', () => {
  for (const cause of ['redis_unreachable', 'redis_command_failed', 'record_unreadable'] as const) {
    const answer = apiErrorFromStorage(storageUnavailable(cause));
    expect([answer.code, answer.reason]).toEqual(['storage_unavailable', cause]);
    expect(answer.retryAfterSeconds).toBeGreaterThan(0);
  }
});

it('conflict is upstream_timeout, waiting on another instance, with a Retry-After', () => {
  const answer = apiErrorFromStorage(storageConflict());
  expect([answer.code, answer.reason]).toEqual(['upstream_timeout', 'waiting_on_other_instance']);
  expect(answer.retryAfterSeconds).toBeGreaterThan(0);
});
