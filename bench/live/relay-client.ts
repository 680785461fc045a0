// The relay's HTTP API called as the chat frame calls it, for the conversations the bench watches.
import { randomBytes } from 'node:crypto';
import type { Relay } from './relay-process.ts';

export const frameHeaders = (relay: Relay) => ({
  Origin: relay.url,
  'X-Practice-Chat': 'frame',
  'Content-Type': 'application/json',
});

/**
 * A new conversation's handle, through `relay`. Tried again with the same key when the connection drops (a kept-alive
 * connection the relay closed as it was reused) or the service is slow: tens of thousands of creates meet both.
 */
export async function createHandle(relay: Relay): Promise<string> {
  const key = `bench-${randomBytes(8).toString('hex')}`;
  for (let attempt = 1; ; attempt++) {
    const answer = await fetch(`${relay.url}/v1/conversations`, {
      method: 'POST',
      headers: { ...frameHeaders(relay), 'Idempotency-Key': key },
      body: JSON.stringify({ client_id: 'demo-client' }),
    }).catch((error: unknown) => {
      if (attempt >= 5) throw error;
      return null;
    });
    // On a loaded machine the service may be slow to answer: the same key again, as the panel retries.
    if (answer === null || ((answer.status === 503 || answer.status === 504) && attempt < 5)) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      continue;
    }
    if (answer.status !== 201) throw new Error(`create answered ${answer.status}`);
    return ((await answer.json()) as { conversation: string }).conversation;
  }
}

/** A conversation through `relay`: its handle, and its upstream id. */
export type CreateConversation = (relay: Relay) => Promise<{ handle: string; id: string }>;

/**
 * Creates conversations one at a time, each paired with `newestUpstreamId()`, the simulator's newest conversation,
 * once its create is answered: handles are sealed, so that is the only way to tell which upstream id is whose.
 */
export function conversationCreator(newestUpstreamId: () => string): CreateConversation {
  let creating: Promise<unknown> = Promise.resolve();
  return (relay) => {
    const created = creating.then(async () => ({
      handle: await createHandle(relay),
      id: newestUpstreamId(),
    }));
    creating = created.catch(() => {});
    return created;
  };
}
