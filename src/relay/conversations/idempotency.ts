// Idempotency-Key handling for sending a message: the same key with the same body sends once and answers the same
// result (concurrent duplicates share the one send in flight); the same key with another body is refused. A send
// that fails is forgotten, so the visitor's retry with the same key really sends again. Only a hash of the body is
// kept, and the result the caller chooses to keep (the send route keeps the sent message without its text).
// This is the in-memory kind, for one instance; redis-idempotency.ts is the kind every instance shares.
import { digest } from './digest.ts';

/** `replayed`: answered from what an earlier request with the key did (or is doing), not done by this one. */
export type IdempotentOutcome<T> = { kind: 'result'; value: T; replayed?: true } | { kind: 'conflict' };

/**
 * A record of the work's own (a send's attempt, deliver-once.ts) that a shared store keeps in the same steps as the
 * key's, so that each step is one round trip: `value` under `key` unless a record is there already, in the step that
 * takes the key; then, with the result, `key` deleted and `answeredKey(result)` set, both for `ttlMs`. `earlier` reads
 * the record that was there before (null when none, or one that does not read).
 */
export interface WorkRecord<T, E> {
  key: string;
  value: string;
  ttlMs: number;
  earlier(stored: string): E | null;
  answeredKey(result: T): string;
}

/** Handed to the work when the store kept its record in the step that took the key: what was there before, or null. */
export interface RecordedWith<E> {
  earlier: E | null;
}

export interface IdempotencyStore<T = unknown> {
  /**
   * Runs `send` once per (scope, key, body); `scope` keeps different conversations' keys apart. `onWait` is called
   * when this request waits on another one's send with the key (here or on another instance), so that a deadline
   * reached meanwhile is logged as such rather than as the upstream's slowness. `send` is handed the body's
   * fingerprint, so that what it records of the body is the same hash, computed once. `workRecord`: the work's own
   * record, which a shared store keeps in its own steps (then `send` is handed `recorded`, and the work neither keeps
   * its record nor marks it answered itself); a store in memory leaves it to the work.
   */
  run<E>(
    scope: string,
    key: string,
    body: string,
    send: (fingerprint: string, recorded?: RecordedWith<E>) => Promise<T>,
    onWait?: () => void,
    workRecord?: (fingerprint: string) => WorkRecord<T, E> | undefined,
  ): Promise<IdempotentOutcome<T>>;
}

interface Entry<T> {
  fingerprint: string;
  result: Promise<T>;
  storedAt: number;
}

export interface IdempotencyOptions {
  /** How long a key is remembered, counted from when its send started. */
  ttlMs?: number;
  /** The most keys kept at once; the oldest go first. Bounds memory under abuse. */
  maxEntries?: number;
  now?: () => number;
}

export function createIdempotencyStore<T = unknown>({
  ttlMs = 24 * 60 * 60 * 1000,
  maxEntries = 50_000,
  now = Date.now,
}: IdempotencyOptions = {}): IdempotencyStore<T> & { readonly size: number } {
  const entries = new Map<string, Entry<T>>();

  function evict(): void {
    const oldest = now() - ttlMs;
    for (const [id, entry] of entries) {
      // Map keeps insertion order, so the first fresh entry ends the sweep.
      if (entry.storedAt >= oldest && entries.size < maxEntries) break;
      entries.delete(id);
    }
  }

  return {
    get size() {
      return entries.size;
    },

    async run(scope, key, body, send, onWait) {
      evict();
      const id = `${scope}\u0000${key}`;
      const fingerprint = digest(body);
      const existing = entries.get(id);
      if (existing !== undefined) {
        if (existing.fingerprint !== fingerprint) return { kind: 'conflict' };
        onWait?.();
        return { kind: 'result', value: await existing.result, replayed: true };
      }
      const result = send(fingerprint);
      entries.set(id, { fingerprint, result, storedAt: now() });
      try {
        return { kind: 'result', value: await result };
      } catch (error) {
        entries.delete(id);
        throw error;
      }
    },
  };
}
