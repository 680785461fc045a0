// window.PracticeChat: the loader's only global. Callable as a function too, so commands queued by the snippet stub
// (`PracticeChat('open')`) and calls made after loading look the same.

export interface ChatEvents {
  ready: [];
  open: [];
  close: [];
  unread: [count: number];
}
export type ChatEventName = keyof ChatEvents;
export type Unsubscribe = () => void;

export interface PracticeChatApi {
  (command: string, ...args: unknown[]): void;
  open(): void;
  close(): void;
  toggle(): void;
  /** Removes everything the loader added: elements, listeners, timers, the frame, and this global. */
  destroy(): void;
  on<K extends ChatEventName>(event: K, listener: (...args: ChatEvents[K]) => void): Unsubscribe;
  /** Marks the real API, so a second copy of the loader leaves it alone. */
  loaded: true;
}

/** The snippet stub of the README: a function that queues its arguments in `q`. */
export interface QueueStub {
  q?: ArrayLike<unknown>[];
}

const COMMANDS = ['open', 'close', 'toggle', 'destroy', 'on'] as const;

export interface ApiActions {
  setOpen(open: boolean | 'toggle'): void;
  destroy(): void;
}

export interface EventHub {
  emit<K extends ChatEventName>(event: K, ...args: ChatEvents[K]): void;
  clear(): void;
}

export function createApi(actions: ApiActions, isReady: () => boolean): { api: PracticeChatApi; events: EventHub } {
  const listeners = new Map<ChatEventName, Set<(...args: never[]) => void>>();
  const methods = {
    loaded: true as const,
    open: () => actions.setOpen(true),
    close: () => actions.setOpen(false),
    toggle: () => actions.setOpen('toggle'),
    destroy: () => actions.destroy(),
    on<K extends ChatEventName>(event: K, listener: (...args: ChatEvents[K]) => void): Unsubscribe {
      if (typeof listener !== 'function' || !['ready', 'open', 'close', 'unread'].includes(event)) return () => {};
      const set = listeners.get(event) ?? new Set();
      listeners.set(event, set);
      set.add(listener as (...args: never[]) => void);
      // A page that subscribes to `ready` after it happened still hears it, once, asynchronously.
      if (event === 'ready' && isReady()) queueMicrotask(() => set.has(listener as never) && (listener as () => void)());
      return () => void set.delete(listener as (...args: never[]) => void);
    },
  };
  const api = Object.assign(function PracticeChat(command: string, ...args: unknown[]) {
    if ((COMMANDS as readonly string[]).includes(command)) (methods[command as (typeof COMMANDS)[number]] as (...a: unknown[]) => void)(...args);
  }, methods) as PracticeChatApi;

  const events: EventHub = {
    emit(event, ...args) {
      for (const listener of [...(listeners.get(event) ?? [])]) {
        // A page's listener that throws must not break the widget, nor surface as the widget's error.
        try {
          (listener as (...a: typeof args) => void)(...args);
        } catch {
          /* ignored */
        }
      }
    },
    clear: () => listeners.clear(),
  };
  return { api, events };
}

/** Replays commands queued by the snippet stub, in order. */
export function replayQueue(api: PracticeChatApi, stub: unknown): void {
  const queue = typeof stub === 'function' && Array.isArray((stub as QueueStub).q) ? (stub as QueueStub).q! : [];
  for (const args of queue) {
    const [command, ...rest] = Array.from(args);
    if (typeof command === 'string') api(command, ...rest);
  }
}
