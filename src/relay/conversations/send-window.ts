// How long one message send may run upstream: at the window's end it is cancelled with `upstream_timeout`, so that the
// attempt's record (`settlesBy`) holds whatever the service does. A cancellation of the relay's own rather than an
// AbortController: see upstream/cancellation.ts.
import type { Cancellation } from '../upstream/cancellation.ts';
import { UpstreamError } from '../upstream/index.ts';

export class SendWindow implements Cancellation {
  aborted = false;
  reason: unknown = undefined;
  readonly #listeners = new Set<() => void>();
  readonly #timer: ReturnType<typeof setTimeout>;

  constructor(windowMs: number) {
    this.#timer = setTimeout(() => this.#cancel(), windowMs);
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.aborted) this.#listeners.add(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    this.#listeners.delete(listener);
  }

  /** The send is over: its window no longer needs a timer. */
  close(): void {
    clearTimeout(this.#timer);
    this.#listeners.clear();
  }

  #cancel(): void {
    this.aborted = true;
    this.reason = new UpstreamError('upstream_timeout', { path: 'send window' });
    const listeners = [...this.#listeners];
    this.#listeners.clear();
    for (const listener of listeners) listener();
  }
}
