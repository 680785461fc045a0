// "This conversation changed", from the instance that received the service's event to the instance that holds the
// conversation's streams. In memory (one instance) it is a direct call; with Redis, pub/sub on one channel
// (redis-events.ts). Only the conversation's upstream id and the kind of change travel (sealed, through Redis), never
// text.

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
  /** Whether this instance hears the other instances' events now (always, in memory). */
  linked(): boolean;
  close(): Promise<void>;
}

export function createMemoryEventBus(): EventBus {
  const listeners: ((change: ConversationChange) => void)[] = [];
  return {
    publish: async (change) =>
      listeners.forEach((listener) => {
        listener(change);
      }),
    subscribe: (listener) => void listeners.push(listener),
    linked: () => true,
    close: async () => {},
  };
}
