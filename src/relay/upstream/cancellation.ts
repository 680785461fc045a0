// What the upstream client reads of a caller's cancellation: whether it happened, why, and a way to hear it. An
// AbortSignal has all of it; so does the send window (conversations/send-window.ts), which the relay raises for every
// message send and which, unlike an AbortController, builds no EventTarget and listener map each time: in the relay's
// CPU profile of a send that construction was the largest single item.

export interface Cancellation {
  readonly aborted: boolean;
  /** Rethrown as it is by the transports: a cancellation is the caller's, not an upstream failure. */
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** The cancellation as an AbortSignal, for an API that takes only that (fetch): itself when it is one. */
export function asAbortSignal(cancellation: Cancellation): AbortSignal {
  if (cancellation instanceof AbortSignal) return cancellation;
  const controller = new AbortController();
  if (cancellation.aborted) controller.abort(cancellation.reason);
  else cancellation.addEventListener('abort', () => controller.abort(cancellation.reason), { once: true });
  return controller.signal;
}
