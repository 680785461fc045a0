import { describe, expect, it } from 'vitest';
import { createHostBridge, trustedHostOrigin } from '../../../src/frame/host-bridge.ts';
import { envelope, type HostMessage } from '../../../src/shared/protocol.ts';
import { configuration } from './fakes.ts';

/** A window that records its message listener and what is posted to its parent. */
function fakeWindow() {
  const posted: Array<{ data: unknown; targetOrigin: string }> = [];
  const parent = { postMessage: (data: unknown, targetOrigin: string) => posted.push({ data, targetOrigin }) };
  let listener: ((event: MessageEvent) => void) | null = null;
  const win = {
    parent,
    addEventListener: (_type: string, fn: (event: MessageEvent) => void) => (listener = fn),
    removeEventListener: () => (listener = null),
  } as unknown as Window;
  const deliver = (origin: string, source: unknown, data: unknown) =>
    listener?.({ origin, source, data } as MessageEvent);
  return { win, parent, posted, deliver, listening: () => listener !== null };
}

describe('trustedHostOrigin', () => {
  it.each([
    ['https://www.smile-dental.test', 'https://www.smile-dental.test'],
    ['http://www.smile-dental.test:8080', 'http://www.smile-dental.test:8080'],
    ['https://evil.test', null],
    ['https://www.smile-dental.test.evil.test', null],
    ['https://www.smile-dental.test/path', null],
    ['javascript:alert(1)', null],
    ['*', null],
    [null, null],
  ])('%s → %s', (claimed, trusted) => {
    expect(trustedHostOrigin(claimed, configuration)).toBe(trusted);
  });
});

describe('host bridge', () => {
  const HOST = 'https://www.smile-dental.test';

  it("accepts a parsed message only from the page's exact origin and from the parent window", () => {
    const { win, parent, deliver } = fakeWindow();
    const received: HostMessage[] = [];
    createHostBridge(win, HOST, (message) => received.push(message));
    deliver('https://evil.test', parent, envelope({ type: 'open' }));
    deliver(HOST, { other: 'window' }, envelope({ type: 'open' }));
    deliver(HOST, parent, { type: 'open' });
    deliver(HOST, parent, envelope({ type: 'navigate' } as unknown as HostMessage));
    expect(received).toEqual([]);
    deliver(HOST, parent, envelope({ type: 'open' }));
    expect(received).toEqual([{ type: 'open' }]);
  });

  it("posts to the page's exact origin, never *", () => {
    const { win, posted } = fakeWindow();
    createHostBridge(win, HOST, () => {}).post({ type: 'unread', count: 2 });
    expect(posted).toEqual([{ data: envelope({ type: 'unread', count: 2 }), targetOrigin: HOST }]);
  });

  it('stops listening when disposed', () => {
    const { win, listening } = fakeWindow();
    const bridge = createHostBridge(win, HOST, () => {});
    bridge.dispose();
    expect(listening()).toBe(false);
  });
});
