// Sends whose outcome is not known: every send is recorded here before it goes upstream, and the record is forgotten
// once upstream has answered. A record that stays is an attempt that may have stored the message with no one told:
// its answer was lost (connection dropped, timeout, a 5xx), it was cut at a shutdown, or its instance died (kill -9,
// out of memory) in the middle. The service documents no idempotency of its own, so before the visitor's retry (same
// Idempotency-Key) sends again, the relay reads the conversation back (deliver-once.ts). This store remembers just
// enough for that: a hash of the body, when the attempt began and by when it must have landed, never the text. It
// also keeps the upstream ids this relay has already answered with, so an identical earlier message ("yes", twice) is
// never mistaken for the lost one.

import type { WorkRecord } from './idempotency.ts';

export interface UnknownAttempt {
  bodyHash: string;
  /** ms since the epoch, the relay's clock, when the first attempt with this body began. */
  startedAt: number;
  /**
   * ms since the epoch: the latest attempt's upstream call is aborted by then, so a read-back after it sees whatever
   * that attempt stored. A retry that finds the attempt's owner gone waits for this before it reads back.
   */
  settlesBy: number;
}

/** In memory for one instance (below); in Redis for several (redis-unknown-outcomes.ts), so a retry on another instance checks too. */
export interface UnknownOutcomeStore {
  remember(scope: string, key: string, attempt: UnknownAttempt): Promise<void>;
  get(scope: string, key: string): Promise<UnknownAttempt | null>;
  /**
   * The record already kept for the key, or null after keeping `attempt` as it: `get`, then `remember` when there was
   * none, in one step (the common send finds nothing and records its attempt).
   */
  rememberUnlessKept(scope: string, key: string, attempt: UnknownAttempt): Promise<UnknownAttempt | null>;
  forget(scope: string, key: string): Promise<void>;
  /** Marks an upstream message id as the answer to some key in this conversation. */
  claim(scope: string, messageId: string): Promise<void>;
  /** `forget` the key's attempt and `claim` the message that answered it, in one step. */
  answered(scope: string, key: string, messageId: string): Promise<void>;
  /**
   * How a shared store names and writes the attempt's records, for the idempotency store to keep them in the same
   * steps as its own (redis-idempotency.ts): a send then costs one round trip before it goes upstream and one after.
   * Absent in memory, where a step costs nothing.
   */
  sharedRecords?(scope: string, key: string, attempt: UnknownAttempt): WorkRecord<{ id: string }, UnknownAttempt>;
  isClaimed(scope: string, messageId: string): Promise<boolean>;
}

export interface UnknownOutcomeOptions {
  /** How long both kinds of record are kept (a visitor's retries stop long before). */
  ttlMs?: number;
  /** The most records of each kind; the oldest go first. Bounds memory under abuse. */
  maxEntries?: number;
  now?: () => number;
}

/** In memory, per relay process. A relay restarted between a lost answer and its retry has no record to check. */
export function createUnknownOutcomeStore({
  ttlMs = 24 * 60 * 60 * 1000,
  maxEntries = 50_000,
  now = Date.now,
}: UnknownOutcomeOptions = {}): UnknownOutcomeStore {
  const attempts = new Map<string, UnknownAttempt & { storedAt: number }>();
  const claimed = new Map<string, number>();
  const id = (scope: string, part: string) => `${scope}\u0000${part}`;

  function evict<T>(map: Map<string, T>, storedAt: (value: T) => number): void {
    const oldest = now() - ttlMs;
    for (const [key, value] of map) {
      if (storedAt(value) >= oldest && map.size <= maxEntries) break;
      map.delete(key);
    }
  }

  // The steps themselves are synchronous: a store method made of several of them (rememberUnlessKept, answered) runs
  // them in one go, as one step like Redis' script and transaction, without a turn of the microtask queue for each.
  function kept(scope: string, key: string): UnknownAttempt | null {
    evict(attempts, (value) => value.storedAt);
    const attempt = attempts.get(id(scope, key));
    return attempt === undefined
      ? null
      : { bodyHash: attempt.bodyHash, startedAt: attempt.startedAt, settlesBy: attempt.settlesBy };
  }
  function keep(scope: string, key: string, attempt: UnknownAttempt): void {
    const entry = id(scope, key);
    attempts.delete(entry);
    attempts.set(entry, {
      bodyHash: attempt.bodyHash,
      startedAt: attempt.startedAt,
      settlesBy: attempt.settlesBy,
      storedAt: now(),
    });
    evict(attempts, (value) => value.storedAt);
  }
  function claim(scope: string, messageId: string): void {
    claimed.set(id(scope, messageId), now());
    evict(claimed, (value) => value);
  }

  const store: UnknownOutcomeStore = {
    async remember(scope, key, attempt) {
      keep(scope, key, attempt);
    },
    async get(scope, key) {
      return kept(scope, key);
    },
    async rememberUnlessKept(scope, key, attempt) {
      const earlier = kept(scope, key);
      if (earlier === null) keep(scope, key, attempt);
      return earlier;
    },
    async forget(scope, key) {
      attempts.delete(id(scope, key));
    },
    async claim(scope, messageId) {
      claim(scope, messageId);
    },
    async isClaimed(scope, messageId) {
      return claimed.has(id(scope, messageId));
    },
    async answered(scope, key, messageId) {
      attempts.delete(id(scope, key));
      claim(scope, messageId);
    },
  };
  return store;
}
