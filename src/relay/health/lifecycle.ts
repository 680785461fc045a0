// Whether this instance is stopping. The server (serve.ts) starts the drain; the app reads it to answer /readyz 503
// and to ask keep-alive clients to close their connection after the answer in hand, and the live streams end at once
// (onDrain) so that a deploy never waits on them.
export interface Lifecycle {
  draining(): boolean;
  startDraining(): void;
  /** Called once when the drain starts. */
  onDrain(listener: () => void): void;
}

export function createLifecycle(): Lifecycle {
  let draining = false;
  const listeners: (() => void)[] = [];
  return {
    draining: () => draining,
    startDraining: () => {
      if (draining) return;
      draining = true;
      listeners.splice(0).forEach((listener) => {
        listener();
      });
    },
    onDrain: (listener) => void (draining ? listener() : listeners.push(listener)),
  };
}
