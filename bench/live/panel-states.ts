// The states a patient's panel can be in, each watched two ways for part (c) of the live bench: polling as the panel
// did before streams (src/frame/model/poll-cadence.ts), and one stream per tab.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { nextPollDelayMs, type PollContext } from '../../src/frame/model/poll-cadence.ts';
import { pool } from './pool.ts';
import { type CreateConversation, frameHeaders } from './relay-client.ts';
import type { Relay } from './relay-process.ts';
import { openStream } from './stream-client.ts';

/** A panel as it polled before streams: GET messages at nextPollDelayMs's cadence in the given state. */
function pollLikeThePanel(
  relay: Relay,
  handle: string,
  context: Omit<PollContext, 'msSinceVisitorSent'>,
  sentAt: number | null,
  until: number,
) {
  return (async () => {
    let cursor = 0;
    while (performance.now() < until) {
      const answer = await fetch(`${relay.url}/v1/conversation/messages?after=${cursor}`, {
        headers: { ...frameHeaders(relay), Authorization: `Bearer ${handle}` },
      });
      if (answer.ok) cursor = ((await answer.json()) as { cursor: number }).cursor;
      const delay = nextPollDelayMs({
        ...context,
        msSinceVisitorSent: sentAt === null ? null : performance.now() - sentAt,
      });
      if (delay === null) return;
      await sleep(delay);
    }
  })();
}

async function sendAsVisitor(relay: Relay, handle: string) {
  await fetch(`${relay.url}/v1/conversation/messages`, {
    method: 'POST',
    headers: {
      ...frameHeaders(relay),
      Authorization: `Bearer ${handle}`,
      'Idempotency-Key': `bench-${randomBytes(8).toString('hex')}`,
    },
    body: JSON.stringify({ text: 'Can I move my appointment?' }),
  });
}

export interface StateRun {
  state: string;
  /** Returns the upstream conversation ids whose reads count for this state, once started. */
  polling(relay: Relay, until: number): Promise<string[]>;
  streaming(relay: Relay, until: number): Promise<string[]>;
}

export const PER_STATE = 5;
const idle = { panelOpen: true, tabHidden: false, awaitingReply: false };

export function panelStates(createConversation: CreateConversation): StateRun[] {
  /** PER_STATE new conversations through `relay`, each handed to `watch`; their upstream ids. */
  const watched = (relay: Relay, watch: (handle: string) => unknown) =>
    pool(PER_STATE, PER_STATE, async () => {
      const c = await createConversation(relay);
      await watch(c.handle);
      return c.id;
    });
  return [
    {
      state: 'open, idle',
      polling: (relay, until) => watched(relay, (handle) => void pollLikeThePanel(relay, handle, idle, null, until)),
      streaming: (relay) => watched(relay, (handle) => void openStream(relay, handle)),
    },
    {
      state: "closed (the launcher's unread count)",
      polling: (relay, until) =>
        watched(relay, (handle) => void pollLikeThePanel(relay, handle, { ...idle, panelOpen: false }, null, until)),
      streaming: (relay) => watched(relay, (handle) => void openStream(relay, handle)),
    },
    {
      state: 'two tabs, open and idle',
      polling: (relay, until) =>
        watched(relay, (handle) => {
          void pollLikeThePanel(relay, handle, idle, null, until);
          void pollLikeThePanel(relay, handle, idle, null, until);
        }),
      streaming: (relay) =>
        watched(relay, (handle) => {
          openStream(relay, handle);
          openStream(relay, handle);
        }),
    },
    {
      state: 'the first 30 s after the patient writes',
      polling: (relay, until) =>
        watched(relay, async (handle) => {
          await sendAsVisitor(relay, handle);
          void pollLikeThePanel(relay, handle, idle, performance.now(), until);
        }),
      streaming: (relay) =>
        watched(relay, async (handle) => {
          openStream(relay, handle);
          await sendAsVisitor(relay, handle);
        }),
    },
  ];
}
