// "This conversation changed", from the instance that received the service's event to the instance that holds the
// conversation's streams. In memory (one instance) it is a direct call; with Redis, pub/sub on one channel
// (redis-events.ts). Only the conversation's upstream id travels (sealed, through Redis), never text.

export interface EventBus {
  publish(conversationId: string): Promise<void>;
  subscribe(listener: (conversationId: string) => void): void;
  /** Whether this instance hears the other instances' events now (always, in memory). */
  linked(): boolean;
  close(): Promise<void>;
}

export function createMemoryEventBus(): EventBus {
  const listeners: ((conversationId: string) => void)[] = [];
  return {
    publish: async (conversationId) =>
      listeners.forEach((listener) => {
        listener(conversationId);
      }),
    subscribe: (listener) => void listeners.push(listener),
    linked: () => true,
    close: async () => {},
  };
}
