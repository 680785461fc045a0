// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createChatFrame } from '../../../src/loader/frame.ts';
import { holdMessages } from '../../../src/loader/held-messages.ts';
import { mountLauncher } from '../../../src/loader/launcher.ts';
import { languageTag } from '../../../src/shared/language-tag.ts';
import { envelope, type FrameMessage } from '../../../src/shared/protocol.ts';
import { smileDentalAnswer } from '../../support/configurations.ts';

const RELAY = 'https://relay.example';

/**
 * The launcher and its frame's element as loader.js makes them on the first intent (the page's messages held from
 * then on), and `before` run before the frame's code takes them over (`adopt`, or at once).
 */
function setUp(
  before?: (deliver: (origin: string, source: unknown, data: unknown) => void, frameWindow: object) => void,
) {
  const launcher = mountLauncher(document, { ...smileDentalAnswer, logo_url: null }, '');
  document.body.append(launcher.host);
  const held = holdMessages(window);
  const iframe = launcher.addFrame(`${RELAY}/frame?client_id=x1`);
  const received: FrameMessage[] = [];
  const posted: Array<{ data: unknown; targetOrigin: string }> = [];
  // The test stands in for the frame's window, which a test environment does not load.
  const frameWindow = { postMessage: (data: unknown, targetOrigin: string) => posted.push({ data, targetOrigin }) };
  Object.defineProperty(iframe, 'contentWindow', { value: frameWindow });
  const deliver = (origin: string, source: unknown, data: unknown) =>
    window.dispatchEvent(new MessageEvent('message', { origin, source: source as MessageEventSource, data }));
  before?.(deliver, frameWindow);
  const frame = createChatFrame(window, launcher.shadow, RELAY, iframe, held, true, languageTag, (message) =>
    received.push(message),
  );
  // As destroy() does: its timer chain stops, and the page's listener goes.
  let removed = false;
  const remove = frame.remove;
  frame.remove = () => {
    removed = true;
    remove();
  };
  cleanUps.push(() => {
    if (!removed) frame.remove();
    window.removeEventListener('message', held);
  });
  return { frame, iframe, frameWindow, received, posted, deliver, launcher, held };
}
const cleanUps: Array<() => void> = [];

describe("the loader's side of the protocol", () => {
  it('points the frame at the relay, sandboxed so it can never navigate or script the page, hidden until open and ready', async () => {
    vi.useFakeTimers();
    const { iframe, frame, frameWindow, deliver } = setUp();
    expect(iframe.src).toBe(`${RELAY}/frame?client_id=x1`);
    expect(iframe.getAttribute('sandbox')?.split(' ')).not.toContain('allow-top-navigation');
    expect([iframe.referrerPolicy, iframe.title, iframe.hidden]).toEqual(['origin', 'Chat with Sunny', true]);
    // Opened while its page loads: not shown (nor in the page's accessibility tree) until its panel is ready.
    frame.post({ type: 'open' });
    await vi.advanceTimersByTimeAsync(10);
    expect(iframe.hidden).toBe(true);
    deliver(RELAY, frameWindow, envelope({ type: 'ready' }));
    await vi.advanceTimersByTimeAsync(10);
    expect([iframe.hidden, iframe.style.position]).toEqual([false, 'fixed']);
    frame.post({ type: 'close' });
    expect(iframe.hidden).toBe(true);
  });

  it('reads, in order, the messages the frame sent before its code came, then every later one', async () => {
    vi.useFakeTimers();
    const { frame, frameWindow, received, posted, deliver } = setUp((early, frameWindow) => {
      early(RELAY, frameWindow, envelope({ type: 'language', locale: 'es' }));
      early('https://evil.example', frameWindow, envelope({ type: 'unread', count: 9 }));
      early(RELAY, frameWindow, envelope({ type: 'ready' }));
      early(RELAY, frameWindow, envelope({ type: 'unread', count: 2 }));
    });
    expect(received).toEqual([{ type: 'language', locale: 'es' }, { type: 'ready' }, { type: 'unread', count: 2 }]);
    // The frame said it was ready before this code came: an open goes out on the chain's next tick.
    frame.post({ type: 'open' });
    await vi.advanceTimersByTimeAsync(10);
    expect(posted).toEqual([{ data: envelope({ type: 'open' }), targetOrigin: RELAY }]);
    deliver(RELAY, frameWindow, envelope({ type: 'close' }));
    expect(received.at(-1)).toEqual({ type: 'close' });
  });

  it("styles the unread count's badge, which loader.js leaves unstyled", () => {
    const { launcher } = setUp();
    const badge = launcher.shadow.querySelector('span')!;
    expect([badge.style.position, badge.style.top]).toEqual(['absolute', '-4px']);
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
    for (const cleanUp of cleanUps.splice(0)) cleanUp();
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

  it("takes the page's messages over from the list that held them, which is the one listener to remove", () => {
    const { frameWindow, received, deliver, held } = setUp();
    window.removeEventListener('message', held);
    deliver(RELAY, frameWindow, envelope({ type: 'ready' }));
    expect(received).toEqual([]);
  });
});
