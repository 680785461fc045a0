import { z } from 'zod';
import { opaqueId } from '../random.ts';
import type { ConversationChange } from '../store.ts';
import { SIGNATURE_HEADER, signatureHeader } from './signature.ts';

/** Where and how the simulator sends upstream events; `npm start` points it at its relay. */
export interface UpstreamEventsTarget {
  /** e.g. http://127.0.0.1:8787/v1/upstream-events */
  url: string;
  /** The relay's UPSTREAM_EVENTS_SECRET. */
  secret: string;
  /** Per attempt, default 2000. */
  timeoutMs?: number;
}

export const eventsTargetSchema = z.object({
  url: z
    .string()
    .url()
    .refine((url) => /^https?:$/.test(new URL(url).protocol), 'an http:// or https:// URL'),
  secret: z.string().min(1),
  timeoutMs: z.number().int().positive().optional(),
});

export interface EventSender {
  /** Queues the event and returns at once: an API answer never waits on the relay. */
  notify(conversationId: string, change: ConversationChange, at: string): void;
  /** Resolves once every queued event has been sent or given up (for tests). */
  idle(): Promise<void>;
  /** Cuts what is in flight and drops what is queued. */
  close(): void;
}

const RETRY_DELAY_MS = 250;
// An event only wakes a read, so when the relay is away for long, dropping is better than an unbounded queue.
const MAX_QUEUED = 1000;

/**
 * Sends each change as a signed event, one conversation's events in the order they happened (a chain per
 * conversation), at most two attempts each (one retry after a network error, a timeout, 429 or 5xx). The body names
 * the conversation and the kind of change only: never message text. Nothing is logged.
 */
export function createEventSender(target: UpstreamEventsTarget, options: { now: () => number }): EventSender {
  const parsed = eventsTargetSchema.safeParse(target);
  // The message names the rule, never the values (the secret is one of them).
  if (!parsed.success)
    throw new Error(
      'events: url must be an http:// or https:// URL, secret must not be empty, timeoutMs a whole number above 0.',
    );
  const { url, secret, timeoutMs = 2000 } = parsed.data;
  const closing = new AbortController();
  const chains = new Map<string, Promise<void>>();
  let queued = 0;

  const attempt = async (body: string): Promise<'done' | 'retry'> => {
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          [SIGNATURE_HEADER]: signatureHeader(secret, body, options.now() / 1000),
        },
        body,
        signal: AbortSignal.any([closing.signal, AbortSignal.timeout(timeoutMs)]),
      });
      // Read to the end so the connection can be reused.
      await response.arrayBuffer();
      return response.status === 429 || response.status >= 500 ? 'retry' : 'done';
    } catch {
      return 'retry';
    }
  };

  const deliver = async (body: string): Promise<void> => {
    if ((await attempt(body)) === 'done' || closing.signal.aborted) return;
    await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
    // The same body, so the same event id: the relay accepts it once.
    if (!closing.signal.aborted) await attempt(body);
  };

  return {
    notify(conversationId, change, at) {
      if (closing.signal.aborted || queued >= MAX_QUEUED) return;
      const body = JSON.stringify({
        id: opaqueId('evt_'),
        type: `conversation.${change}`,
        conversation: conversationId,
        occurred_at: at,
      });
      queued++;
      const previous = chains.get(conversationId) ?? Promise.resolve();
      const next = previous
        .then(() => deliver(body))
        .finally(() => {
          queued--;
          if (chains.get(conversationId) === next) chains.delete(conversationId);
        });
      chains.set(conversationId, next);
    },
    async idle() {
      while (chains.size > 0) await Promise.all(chains.values());
    },
    close() {
      closing.abort();
    },
  };
}
