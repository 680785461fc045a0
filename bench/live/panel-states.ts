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
  return [
    {
      state: 'open, idle',
      polling: (relay, until) =>
        pool(PER_STATE, PER_STATE, async () => {
          const c = await createConversation(relay);
          void pollLikeThePanel(relay, c.handle, idle, null, until);
          return c.id;
        }),
      streaming: (relay) =>
        pool(PER_STATE, PER_STATE, async () => {
          const c = await createConversation(relay);
          openStream(relay, c.handle);
          return c.id;
        }),
    },
    {
      state: "closed (the launcher's unread count)",
      polling: (relay, until) =>
        pool(PER_STATE, PER_STATE, async () => {
          const c = await createConversation(relay);
          void pollLikeThePanel(relay, c.handle, { ...idle, panelOpen: false }, null, until);
          return c.id;
        }),
      streaming: (relay) =>
        pool(PER_STATE, PER_STATE, async () => {
          const c = await createConversation(relay);
          openStream(relay, c.handle);
          return c.id;
        }),
    },
    {
      state: 'two tabs, open and idle',
      polling: (relay, until) =>
        pool(PER_STATE, PER_STATE, async () => {
          const c = await createConversation(relay);
          void pollLikeThePanel(relay, c.handle, idle, null, until);
          void pollLikeThePanel(relay, c.handle, idle, null, until);
          return c.id;
        }),
      streaming: (relay) =>
        pool(PER_STATE, PER_STATE, async () => {
          const c = await createConversation(relay);
          openStream(relay, c.handle);
          openStream(relay, c.handle);
          return c.id;
        }),
    },
    {
      state: 'the first 30 s after the patient writes',
      polling: (relay, until) =>
        pool(PER_STATE, PER_STATE, async () => {
          const c = await createConversation(relay);
          await sendAsVisitor(relay, c.handle);
          void pollLikeThePanel(relay, c.handle, idle, performance.now(), until);
          return c.id;
        }),
      streaming: (relay) =>
        pool(PER_STATE, PER_STATE, async () => {
          const c = await createConversation(relay);
          openStream(relay, c.handle);
          await sendAsVisitor(relay, c.handle);
          return c.id;
        }),
    },
  ];
}
