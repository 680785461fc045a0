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

/** The snippet stub of docs/embedding.md: a function that queues its arguments in `q`. */
export interface QueueStub {
  q?: ArrayLike<unknown>[];
}

export interface ApiActions {
  setOpen(open: boolean | 'toggle'): void;
  destroy(): void;
}

export interface EventHub {
  emit<K extends ChatEventName>(event: K, ...args: ChatEvents[K]): void;
  removeAllListeners(): void;
}

type Listener = (...args: unknown[]) => void;

export function createApi(actions: ApiActions, isReady: () => boolean): { api: PracticeChatApi; events: EventHub } {
  // One set per event name: an unknown name finds none, so `on('__proto__', …)` cannot reach an object's internals; a
  // listener added twice is called once.
  let listeners: Map<string, Set<Listener>>;
  const removeAllListeners = () =>
    (listeners = new Map(['ready', 'open', 'close', 'unread'].map((name) => [name, new Set()])));
  removeAllListeners();
  const setOpen = actions.setOpen;
  // Only functions: `loaded` goes on the API itself, so every own name here is a command.
  const methods: Record<string, (...args: never[]) => unknown> = {
    open: () => setOpen(true),
    close: () => setOpen(false),
    toggle: () => setOpen('toggle'),
    destroy: actions.destroy,
    on(event: string, listener: Listener): Unsubscribe {
      const list = listeners.get(event);
      if (!list || typeof listener !== 'function') return () => {};
      list.add(listener);
      // A page that subscribes to `ready` after it happened still hears it, once, asynchronously (unless it unsubscribed
      // or the widget was destroyed meanwhile).
      if (event === 'ready' && isReady()) queueMicrotask(() => listeners.get(event)!.has(listener) && listener());
      return () => void list.delete(listener);
    },
  };
  const api = Object.assign(
    (command: string, ...args: unknown[]) => {
      if (Object.hasOwn(methods, command)) (methods[command] as Listener)(...args);
    },
    methods,
    { loaded: true },
  ) as unknown as PracticeChatApi;

  const events: EventHub = {
    emit(event, ...args) {
      for (const listener of listeners.get(event)!) {
        // A page's listener that throws must not break the widget, nor surface as the widget's error.
        try {
          listener(...args);
        } catch {
          /* ignored */
        }
      }
    },
    removeAllListeners,
  };
  return { api, events };
}

/** Replays commands queued by the snippet stub, in order. */
export function replayQueue(api: PracticeChatApi, stub: unknown): void {
  for (const args of Object(stub).q ?? []) api(...(Array.from(args) as [string]));
}
