// The upstream events' shared state in Redis: accepted event ids (SET NX with an expiry, by digest) and the pub/sub
// channel that carries "this conversation changed" to every instance. Subscribing needs a connection of its own. The
// conversation's id crosses the channel sealed (the relay's secret, the same on every instance): whoever watches Redis
// (MONITOR, a subscriber of their own) learns no upstream id.
import { digest } from '../conversations/digest.ts';
import type { RecordSealer } from '../conversations/record-seal.ts';
import type { RedisClient } from '../shared-state/redis-client.ts';
import type { ConversationChange, EventBus } from './event-bus.ts';
import { EVENT_ID_TTL_MS, type EventIdStore } from './event-ids.ts';

const EVENT_ID_PREFIX = 'pwc:evt:';
export const EVENTS_CHANNEL = 'pwc:events';

/** While Redis is unreachable an event counts as new: the worst a replay can then do is wake one read. */
export function createRedisEventIdStore(client: RedisClient): EventIdStore {
  return {
    async firstSeen(id) {
      try {
        return (await client.set(`${EVENT_ID_PREFIX}${digest(id)}`, '1', 'PX', EVENT_ID_TTL_MS, 'NX')) === 'OK';
      } catch {
        return true;
      }
    },
  };
}

const SEAL_SCOPE = 'events';
/** Sealed as `<kind>:<conversation id>`. */
const KIND_SEPARATOR = ':';

/** The change, or null for text that is not `<kind>:<conversation id>` with a kind this relay knows. */
function changeOf(opened: string): ConversationChange | null {
  const at = opened.indexOf(KIND_SEPARATOR);
  const kind = opened.slice(0, at);
  if (kind === 'messages' || kind === 'status') return { kind, conversationId: opened.slice(at + 1) };
  return null;
}

export function createRedisEventBus(client: RedisClient, sealer: RecordSealer): EventBus {
  // Subscribed again on every (re)connection by us rather than by ioredis: its own re-subscription after a reconnect
  // is a promise nobody awaits, which rejects unhandled when the connection drops again at once.
  const subscriber = client.duplicate({ autoResubscribe: false });
  // Its failures are the main client's to report (redis-client.ts); this one just reconnects.
  subscriber.on('error', () => {});
  const listeners: ((change: ConversationChange) => void)[] = [];
  // The channel's key never changes: derived once, not on every publish and every message heard.
  const channel = sealer.bound(SEAL_SCOPE, EVENTS_CHANNEL);
  subscriber.on('message', (name: string, sealed: string) => {
    const opened = name === EVENTS_CHANNEL ? channel.open(sealed) : null;
    const change = opened === null ? null : changeOf(opened);
    if (change === null) return;
    listeners.forEach((listener) => {
      listener(change);
    });
  });
  let subscribed = false;
  subscriber.on('ready', () => {
    subscriber.subscribe(EVENTS_CHANNEL).then(
      () => {
        subscribed = true;
      },
      () => {},
    );
  });
  subscriber.on('close', () => {
    subscribed = false;
  });
  return {
    publish: async ({ kind, conversationId }) => {
      const sealed = channel.seal(`${kind}${KIND_SEPARATOR}${conversationId}`);
      await client.publish(EVENTS_CHANNEL, sealed).catch(() => {});
    },
    subscribe: (listener) => void listeners.push(listener),
    linked: () => subscribed,
    close: async () => {
      await subscriber.quit().catch(() => subscriber.disconnect());
    },
  };
}
