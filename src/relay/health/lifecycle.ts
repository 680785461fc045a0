// Whether this instance is stopping. The server (serve.ts) starts the drain; the app reads it to answer /readyz 503
// and to ask keep-alive clients to close their connection after the answer in hand.
export interface Lifecycle {
  draining(): boolean;
  startDraining(): void;
}

export function createLifecycle(): Lifecycle {
  let draining = false;
  return {
    draining: () => draining,
    startDraining: () => {
      draining = true;
    },
  };
}
