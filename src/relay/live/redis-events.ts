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

const SEAL_SCOPE = 'events';
/** Sealed as `<kind>:<conversation id>`. */
const KIND_SEPARATOR = ':';

/** A change sealed without its kind (by an instance of an older version, during a rolling deploy) counts as a status
 * change: the listener then reads the status too, as before kinds travelled. */
function changeOf(opened: string): ConversationChange {
  const at = opened.indexOf(KIND_SEPARATOR);
  const kind = opened.slice(0, at);
  if (kind === 'messages' || kind === 'status') return { kind, conversationId: opened.slice(at + 1) };
  return { kind: 'status', conversationId: opened };
}

export function createRedisEventBus(client: RedisClient, sealer: RecordSealer): EventBus {
  // Subscribed again on every (re)connection by us rather than by ioredis: its own re-subscription after a reconnect
  // is a promise nobody awaits, which rejects unhandled when the connection drops again at once.
  const subscriber = client.duplicate({ autoResubscribe: false });
  // Its failures are the main client's to report (redis-client.ts); this one just reconnects.
  subscriber.on('error', () => {});
  const listeners: ((change: ConversationChange) => void)[] = [];
  const activityListeners: ((conversationId: string) => void)[] = [];
  // The channels' keys never change: derived once, not on every publish and every message heard.
  const channel = sealer.bound(SEAL_SCOPE, EVENTS_CHANNEL);
  const activityChannel = sealer.bound(SEAL_SCOPE, ACTIVITY_CHANNEL);
  subscriber.on('message', (name: string, sealed: string) => {
    if (name === ACTIVITY_CHANNEL) {
      const conversationId = activityChannel.open(sealed);
      if (conversationId !== null)
        activityListeners.forEach((listener) => {
          listener(conversationId);
        });
      return;
    }
    const opened = name === EVENTS_CHANNEL ? channel.open(sealed) : null;
    if (opened === null) return;
    const change = changeOf(opened);
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
    publish: async ({ kind, conversationId }) => {
      const sealed = channel.seal(`${kind}${KIND_SEPARATOR}${conversationId}`);
      await client.publish(EVENTS_CHANNEL, sealed).catch(() => {});
    },
    subscribe: (listener) => void listeners.push(listener),
    announceActivity: async (conversationId) => {
      await client.publish(ACTIVITY_CHANNEL, activityChannel.seal(conversationId)).catch(() => {});
    },
    onActivity: (listener) => void activityListeners.push(listener),
    linked: () => subscribed,
    close: async () => {
      await subscriber.quit().catch(() => subscriber.disconnect());
    },
  };
}
