// "This conversation changed", from the instance that received the service's event to the instance that holds the
// conversation's streams; and, beside it, "the patient just wrote", from the instance that took the send to the one
// holding the patient's stream, so that the instance able to deliver a reply is the one that reads fast for it. In
// memory (one instance) both are direct calls; with Redis, pub/sub on a channel each (redis-events.ts). Only the
// conversation's upstream id and the kind of change travel (sealed, through Redis), never text.

export interface ConversationChange {
  conversationId: string;
  /**
   * `status`: the status changed, so a status reading kept for the conversation is out of date. `messages`: only new
   * messages, so a kept reading still holds (a status change is announced by an event of its own).
   */
  kind: 'messages' | 'status';
}

export interface EventBus {
  publish(change: ConversationChange): Promise<void>;
  subscribe(listener: (change: ConversationChange) => void): void;
  /** The patient wrote or asked for a person: every instance holding the conversation's streams reads fast a while. */
  announceActivity(conversationId: string): Promise<void>;
  onActivity(listener: (conversationId: string) => void): void;
  /** Whether this instance hears the other instances' events now (always, in memory). */
  linked(): boolean;
  close(): Promise<void>;
}

export function createMemoryEventBus(): EventBus {
  const listeners: ((change: ConversationChange) => void)[] = [];
  const activityListeners: ((conversationId: string) => void)[] = [];
  return {
    publish: async (change) =>
      listeners.forEach((listener) => {
        listener(change);
      }),
    subscribe: (listener) => void listeners.push(listener),
    announceActivity: async (conversationId) =>
      activityListeners.forEach((listener) => {
        listener(conversationId);
      }),
    onActivity: (listener) => void activityListeners.push(listener),
    linked: () => true,
    close: async () => {},
  };
}
