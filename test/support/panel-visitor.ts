// A visitor driven through the chat panel's own model and transport, in Node: the same retry, backoff, ordering and
// idempotency code a browser runs, with fetch pointed at a real relay. For fault suites that need many visitors.
import { createChatModel } from '../../src/frame/model/chat-model.ts';
import { createHandleStorage } from '../../src/frame/session/handle-storage.ts';
import { createTransport } from '../../src/frame/transport.ts';
import { randomKey } from '../../src/frame/random-key.ts';

export interface PanelVisitor {
  send(text: string): void;
  /** Visitor messages as the panel shows them. */
  delivery(): Array<{ text: string; delivery: string | null }>;
  /** Resolves when every visitor message is sent; rejects if one is shown as failed. */
  allSent(timeoutMs: number): Promise<void>;
  /** The visitor presses "Try again" on each message shown as not sent (same Idempotency-Key); how many. */
  retryFailed(): number;
  dispose(): void;
}

export function createPanelVisitor(relayUrl: string, clientId = 'demo-client'): PanelVisitor {
  const origin = new URL(relayUrl).origin;
  // A browser adds Origin to the frame's POSTs by itself; Node's fetch does not, so it is added here as the browser
  // would (the frame is on the relay's origin).
  const transport = createTransport((input, init) => {
    const method = (init?.method ?? 'GET').toUpperCase();
    const headers = new Headers(init?.headers);
    if (method !== 'GET') headers.set('Origin', origin);
    return fetch(input, { ...init, headers });
  }, origin);
  const model = createChatModel({
    transport,
    clientId,
    handles: createHandleStorage(null, clientId, Date.now),
    analytics: { track() {} },
    now: Date.now,
    random: Math.random,
    newKey: randomKey,
    setTimer: (run, ms) => setTimeout(run, ms),
    clearTimer: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
    onUnread: () => {},
    onAlert: () => {},
  });
  const visitorMessages = () => model.messages.value.filter((message) => message.sender === 'visitor');
  return {
    send: (text) => model.send(text),
    delivery: () => visitorMessages().map((message) => ({ text: message.text, delivery: message.delivery })),
    async allSent(timeoutMs) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const messages = visitorMessages();
        const failed = messages.filter((message) => message.delivery === 'failed');
        if (failed.length > 0) throw new Error(`${failed.length} message(s) shown as not sent`);
        if (messages.every((message) => message.delivery === 'sent')) return;
        if (Date.now() > end)
          throw new Error(`not all sent in time: ${JSON.stringify(messages.map((message) => message.delivery))}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    retryFailed() {
      const failed = visitorMessages().filter((message) => message.delivery === 'failed');
      failed.forEach((message) => {
        model.retry(message.key);
      });
      return failed.length;
    },
    dispose: () => model.dispose(),
  };
}
