// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { createChatFrame } from '../../../src/loader/frame.ts';
import { envelope, type FrameMessage } from '../../../src/shared/protocol.ts';

const RELAY = 'https://relay.example';

function setUp() {
  const host = document.createElement('div');
  const shadow = host.attachShadow({ mode: 'open' });
  const received: FrameMessage[] = [];
  const posted: Array<{ data: unknown; targetOrigin: string }> = [];
  const frame = createChatFrame(window, shadow, RELAY, new URLSearchParams({ client_id: 'x1' }), 'Chat', (message) => received.push(message));
  frame.ensure();
  const iframe = shadow.querySelector('iframe')!;
  // The test stands in for the frame's window, which a test environment does not load.
  const frameWindow = { postMessage: (data: unknown, targetOrigin: string) => posted.push({ data, targetOrigin }) };
  Object.defineProperty(iframe, 'contentWindow', { value: frameWindow });
  const deliver = (origin: string, source: unknown, data: unknown) =>
    window.dispatchEvent(new MessageEvent('message', { origin, source: source as MessageEventSource, data }));
  return { frame, iframe, frameWindow, received, posted, deliver };
}

describe('the loader\'s side of the protocol', () => {
  it('points the frame at the relay, sandboxed so it can never navigate or script the page', () => {
    const { iframe } = setUp();
    expect(iframe.src).toBe(`${RELAY}/frame?client_id=x1`);
    expect(iframe.getAttribute('sandbox')?.split(' ')).not.toContain('allow-top-navigation');
  });

  it('accepts parsed messages only from the relay\'s origin and from its own frame', () => {
    const { frameWindow, received, deliver } = setUp();
    deliver('https://evil.example', frameWindow, envelope({ type: 'unread', count: 5 }));
    deliver(RELAY, window, envelope({ type: 'unread', count: 5 }));
    deliver(RELAY, frameWindow, { type: 'unread', count: 5 });
    deliver(RELAY, frameWindow, envelope({ type: 'unread', count: -1 }));
    expect(received).toEqual([]);
    deliver(RELAY, frameWindow, envelope({ type: 'unread', count: 5 }));
    expect(received).toEqual([{ type: 'unread', count: 5 }]);
  });

  it('holds the last open/close until the frame is ready, then posts it to the relay\'s exact origin', () => {
    const { frame, frameWindow, posted, deliver } = setUp();
    frame.post({ type: 'open' });
    frame.post({ type: 'close' });
    expect(posted).toEqual([]);
    deliver(RELAY, frameWindow, envelope({ type: 'ready' }));
    expect(posted).toEqual([{ data: envelope({ type: 'close' }), targetOrigin: RELAY }]);
  });

  it('stops listening once removed', () => {
    const { frame, frameWindow, received, deliver } = setUp();
    frame.remove();
    deliver(RELAY, frameWindow, envelope({ type: 'ready' }));
    expect(received).toEqual([]);
  });
});
