// Idempotency-Key handling for sending a message: the same key with the same body sends once and answers the same
// result (concurrent duplicates share the one send in flight); the same key with another body is refused. A send
// that fails is forgotten, so the visitor's retry with the same key really sends again.
import { createHash } from 'node:crypto';

export type IdempotentOutcome<T> = { kind: 'result'; value: T } | { kind: 'conflict' };

export interface IdempotencyStore {
  /** Runs `send` once per (scope, key, body); `scope` keeps different conversations' keys apart. */
  run<T>(scope: string, key: string, body: string, send: () => Promise<T>): Promise<IdempotentOutcome<T>>;
  readonly size: number;
}

interface Entry {
  fingerprint: string;
  result: Promise<unknown>;
  storedAt: number;
}

export interface IdempotencyOptions {
  /** How long a key is remembered, counted from when its send started. */
  ttlMs?: number;
  /** The most keys kept at once; the oldest go first. Bounds memory under abuse. */
  maxEntries?: number;
  now?: () => number;
}

export function createIdempotencyStore({
  ttlMs = 24 * 60 * 60 * 1000,
  maxEntries = 50_000,
  now = Date.now,
}: IdempotencyOptions = {}): IdempotencyStore {
  const entries = new Map<string, Entry>();

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

    async run<T>(scope: string, key: string, body: string, send: () => Promise<T>): Promise<IdempotentOutcome<T>> {
      evict();
      const id = `${scope}\u0000${key}`;
      const fingerprint = createHash('sha256').update(body).digest('base64url');
      const existing = entries.get(id);
      if (existing !== undefined) {
        if (existing.fingerprint !== fingerprint) return { kind: 'conflict' };
        return { kind: 'result', value: (await existing.result) as T };
      }
      const result = send();
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
