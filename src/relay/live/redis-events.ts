// The upstream events' shared state in Redis: accepted event ids (SET NX with an expiry, by digest) and the pub/sub
// channel that carries "this conversation changed" to every instance. Subscribing needs a connection of its own. The
// change crosses the channel sealed (change-seal.ts, the relay's secret, the same on every instance).
import { digest } from '../conversations/digest.ts';
import type { RedisClient } from '../shared-state/redis-client.ts';
import type { ChangeSealer } from './change-seal.ts';
import type { ConversationChange, EventBus } from './event-bus.ts';
import { EVENT_ID_TTL_MS, type EventIdStore } from './event-ids.ts';

const EVENT_ID_PREFIX = 'pwc:evt:';
export const EVENTS_CHANNEL = 'pwc:events';
/**
 * The patient's sends and escalations, on a channel of their own: an instance of an older version, during a rolling
 * deploy, does not subscribe to it, and so never takes a send for the service's event.
 */
export const ACTIVITY_CHANNEL = 'pwc:activity';

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

export function createRedisEventBus(client: RedisClient, changes: ChangeSealer): EventBus {
  // Subscribed again on every (re)connection by us rather than by ioredis: its own re-subscription after a reconnect
  // is a promise nobody awaits, which rejects unhandled when the connection drops again at once.
  const subscriber = client.duplicate({ autoResubscribe: false });
  // Its failures are the main client's to report (redis-client.ts); this one just reconnects.
  subscriber.on('error', () => {});
  const listeners: ((change: ConversationChange) => void)[] = [];
  const activityListeners: ((conversationId: string) => void)[] = [];
  subscriber.on('message', (name: string, sealed: string) => {
    if (name === ACTIVITY_CHANNEL) {
      const conversationId = changes.openActivity(sealed);
      if (conversationId !== null)
        activityListeners.forEach((listener) => {
          listener(conversationId);
        });
      return;
    }
    const change = name === EVENTS_CHANNEL ? changes.open(sealed) : null;
    if (change === null) return;
    listeners.forEach((listener) => {
      listener(change);
    });
  });
  let subscribed = false;
  subscriber.on('ready', () => {
    subscriber.subscribe(EVENTS_CHANNEL, ACTIVITY_CHANNEL).then(
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
    publish: async (change) => {
      await client.publish(EVENTS_CHANNEL, changes.seal(change)).catch(() => {});
    },
    subscribe: (listener) => void listeners.push(listener),
    announceActivity: async (conversationId) => {
      await client.publish(ACTIVITY_CHANNEL, changes.sealActivity(conversationId)).catch(() => {});
    },
    onActivity: (listener) => void activityListeners.push(listener),
    linked: () => subscribed,
    close: async () => {
      await subscriber.quit().catch(() => subscriber.disconnect());
    },
  };
}
