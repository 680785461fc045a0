// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createChatFrame } from '../../../src/loader/frame.ts';
import { envelope, type FrameMessage } from '../../../src/shared/protocol.ts';

const RELAY = 'https://relay.example';

function setUp() {
  const host = document.createElement('div');
  document.body.append(host);
  const shadow = host.attachShadow({ mode: 'open' });
  const received: FrameMessage[] = [];
  const posted: Array<{ data: unknown; targetOrigin: string }> = [];
  const frame = createChatFrame(
    window,
    shadow,
    RELAY,
    new URLSearchParams({ client_id: 'x1' }),
    'Chat',
    true,
    (message) => received.push(message),
  );
  const iframe = shadow.querySelector('iframe')!;
  // The test stands in for the frame's window, which a test environment does not load.
  const frameWindow = { postMessage: (data: unknown, targetOrigin: string) => posted.push({ data, targetOrigin }) };
  Object.defineProperty(iframe, 'contentWindow', { value: frameWindow });
  const deliver = (origin: string, source: unknown, data: unknown) =>
    window.dispatchEvent(new MessageEvent('message', { origin, source: source as MessageEventSource, data }));
  return { frame, iframe, frameWindow, received, posted, deliver };
}

describe("the loader's side of the protocol", () => {
  it('points the frame at the relay, sandboxed so it can never navigate or script the page', () => {
    const { iframe } = setUp();
    expect(iframe.src).toBe(`${RELAY}/frame?client_id=x1`);
    expect(iframe.getAttribute('sandbox')?.split(' ')).not.toContain('allow-top-navigation');
  });

  it("accepts parsed messages only from the relay's origin and from its own frame", () => {
    const { frameWindow, received, deliver } = setUp();
    deliver('https://evil.example', frameWindow, envelope({ type: 'unread', count: 5 }));
    deliver(RELAY, window, envelope({ type: 'unread', count: 5 }));
    deliver(RELAY, frameWindow, { type: 'unread', count: 5 });
    deliver(RELAY, frameWindow, envelope({ type: 'unread', count: -1 }));
    expect(received).toEqual([]);
    deliver(RELAY, frameWindow, envelope({ type: 'unread', count: 5 }));
    expect(received).toEqual([{ type: 'unread', count: 5 }]);
  });

  afterEach(() => {
    vi.useRealTimers();
    document.body.replaceChildren();
  });

  // Sent from the timer chain the open started, not from the `ready` message: WebKit lets only the former carry the
  // patient's click on to the frame, which may then put the caret in its composer (issue 21).
  it("holds the last open/close until the frame is ready, then posts it once to the relay's exact origin, from its own timer", async () => {
    vi.useFakeTimers();
    const { frame, frameWindow, posted, deliver } = setUp();
    frame.post({ type: 'open' });
    frame.post({ type: 'close' });
    await vi.advanceTimersByTimeAsync(100);
    expect(posted).toEqual([]);
    deliver(RELAY, frameWindow, envelope({ type: 'ready' }));
    expect(posted).toEqual([]);
    await vi.advanceTimersByTimeAsync(100);
    expect(posted).toEqual([{ data: envelope({ type: 'close' }), targetOrigin: RELAY }]);
    frame.post({ type: 'open' });
    expect(posted.slice(1)).toEqual([{ data: envelope({ type: 'open' }), targetOrigin: RELAY }]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("moves focus into the frame with an open, only while the page's focus is on the widget or on nothing", () => {
    const { frame, iframe, frameWindow, deliver } = setUp();
    let focused = 0;
    iframe.focus = () => void focused++;
    deliver(RELAY, frameWindow, envelope({ type: 'ready' }));
    frame.post({ type: 'open' });
    expect(focused).toBe(1);
    frame.post({ type: 'close' });
    expect(focused).toBe(1);
    // The patient moved on to the page's own search box while the panel was loading.
    const search = document.createElement('input');
    document.body.append(search);
    search.focus();
    frame.post({ type: 'open' });
    expect(focused).toBe(1);
  });

  it('stops its timer once removed', async () => {
    vi.useFakeTimers();
    const { frame } = setUp();
    frame.post({ type: 'open' });
    expect(vi.getTimerCount()).toBe(1);
    frame.remove();
    await vi.advanceTimersByTimeAsync(100);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('stops listening once removed', () => {
    const { frame, frameWindow, received, deliver } = setUp();
    frame.remove();
    deliver(RELAY, frameWindow, envelope({ type: 'ready' }));
    expect(received).toEqual([]);
  });
});
