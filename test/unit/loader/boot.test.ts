// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createChatFrame } from '../../../src/loader/frame.ts';
import { FRAME_REPORT, REPORT_PREFIX, type BootEnvironment } from '../../../src/loader/boot.ts';
import type { PracticeChatApi } from '../../../src/loader/api.ts';
import { envelope } from '../../../src/shared/protocol.ts';
import { smileDentalAnswer } from '../../support/configurations.ts';
import { addScriptTag, launchers, RELAY, settle, startLoader, testWindow as win } from '../../support/loader-boot.ts';

const allowed = smileDentalAnswer;

function start(
  answer: unknown = allowed,
  status = 200,
  loadFrame: BootEnvironment['loadFrame'] = async () => ({ default: createChatFrame }),
) {
  return startLoader({ answer, status, loadFrame });
}

const frameOf = () => launchers()[0]?.shadowRoot?.querySelector('iframe') ?? null;

beforeEach(() => {
  win().happyDOM.setURL('https://www.smile-dental.test/services');
  document.body.innerHTML = '';
  delete win().PracticeChat;
  addScriptTag();
});
afterEach(() => (win().PracticeChat as PracticeChatApi | undefined)?.destroy?.());

describe('boot', () => {
  it('mounts one launcher for an allowed host, named after the bot, without the frame yet', async () => {
    const { reports, requests } = start();
    await settle();
    expect(requests).toEqual([`${RELAY}/v1/webchat-configuration?client_id=smile-dental&locale=`]);
    expect(reports).toEqual([]);
    expect(launchers()).toHaveLength(1);
    expect(launchers()[0]!.shadowRoot!.querySelector('button')!.getAttribute('aria-label')).toBe('Chat with Sunny');
    expect(frameOf()).toBeNull();
  });

  it('creates the frame on the first focus of the launcher, pointed at the relay with this page as its origin', async () => {
    start();
    await settle();
    launchers()[0]!.shadowRoot!.querySelector('button')!.dispatchEvent(new Event('focus'));
    // At once, before its code arrives: the frame's page loads while the code is on its way.
    const src = new URL(frameOf()!.src);
    expect(src.origin + src.pathname).toBe(`${RELAY}/frame`);
    expect(Object.fromEntries(src.searchParams)).toEqual({
      client_id: 'smile-dental',
      origin: 'https://www.smile-dental.test',
      locale: 'en',
    });
  });

  it("puts nothing but a language tag from the relay's answer in the frame's address", async () => {
    start({ ...allowed, launcher: { ...allowed.launcher, locale: 'en&preview=1#x' } });
    await settle();
    launchers()[0]!.shadowRoot!.querySelector('button')!.dispatchEvent(new Event('focus'));
    const src = new URL(frameOf()!.src);
    expect([Object.fromEntries(src.searchParams), src.hash]).toEqual([
      { client_id: 'smile-dental', origin: 'https://www.smile-dental.test', locale: '' },
      '',
    ]);
  });

  it('replays calls queued by the snippet stub, in order', async () => {
    const seen: string[] = [];
    const stub = Object.assign(function () {}, {
      q: [['on', 'ready', () => seen.push('ready')], ['on', 'open', () => seen.push('open')], ['open']],
    });
    win().PracticeChat = stub;
    start();
    await settle();
    expect(seen).toEqual(['ready', 'open']);
    expect(launchers()[0]!.shadowRoot!.querySelector('button')!.getAttribute('aria-expanded')).toBe('true');
  });

  it('gives one widget when the tag is pasted twice', async () => {
    start();
    const first = win().PracticeChat;
    addScriptTag();
    start();
    await settle();
    expect(win().PracticeChat).toBe(first);
    expect(launchers()).toHaveLength(1);
  });

  it('destroy() removes everything, and a new script tag gives a working widget again', async () => {
    const seen: string[] = [];
    start();
    await settle();
    const api = win().PracticeChat as PracticeChatApi;
    api.on('close', () => seen.push('close'));
    api.open();
    api.destroy();
    expect(launchers()).toHaveLength(0);
    expect(win().PracticeChat).toBeUndefined();
    api.close();
    expect(seen).toEqual([]);
    start();
    await settle();
    expect(launchers()).toHaveLength(1);
  });

  it('hangs the launcher from <html> after <body>, behind the comment React ends its look at, and destroy() takes both', async () => {
    const afterBody = () => {
      const nodes = [...document.documentElement.childNodes];
      return nodes.slice(nodes.indexOf(document.body) + 1).map((node) => node.nodeName + ' ' + (node.nodeValue ?? ''));
    };
    start();
    await settle();
    // React 18 and 19 read `<!--/$-->` as a Suspense boundary's end: no node after it is theirs to hydrate.
    expect(afterBody()).toEqual(['#comment /$', 'PRACTICE-CHAT-Q7X ']);
    (win().PracticeChat as PracticeChatApi).destroy();
    expect(afterBody()).toEqual([]);
  });

  it('on() returns an unsubscribe function, and typed events fire', async () => {
    start();
    await settle();
    const api = win().PracticeChat as PracticeChatApi;
    const seen: string[] = [];
    const off = api.on('open', () => seen.push('open'));
    api.on('close', () => seen.push('close'));
    api.toggle();
    off();
    api.toggle();
    api.open();
    expect(seen).toEqual(['open', 'close']);
  });

  it.each([
    ['an inactive configuration', { ...allowed, is_active: false }, 200, 'the chat is not active'],
    ['no domains', { ...allowed, domains: [] }, 200, 'no domains are allowed'],
    [
      'a host that is not allowed',
      { ...allowed, domains: ['smile-dental.test'] },
      200,
      'www.smile-dental.test is not an allowed domain',
    ],
    ['an unknown client id', { error: { code: 'not_found' } }, 404, 'no configuration smile-dental'],
    ['a malformed answer', { client_id: 'smile-dental' }, 200, 'the configuration is malformed'],
  ])('fails closed on %s: nothing mounted, exactly one line', async (_why, answer, status, reason) => {
    const { reports } = start(answer, status);
    await settle();
    expect(launchers()).toHaveLength(0);
    expect(reports).toEqual([REPORT_PREFIX + reason]);
  });

  it('fails closed without a client id, before any request', async () => {
    document.body.innerHTML = '';
    addScriptTag('');
    const { reports, requests } = start();
    await settle();
    expect(requests).toEqual([]);
    expect(reports).toEqual([
      `${REPORT_PREFIX}paste its script tag once, with a valid data-client-id, outside shadow roots`,
    ]);
    // The API exists and does nothing, so a page calling it never throws.
    expect(() => (win().PracticeChat as PracticeChatApi).open()).not.toThrow();
  });

  it('shows the logo, and falls back to the icon when the signed URL fails', async () => {
    start({ ...allowed, logo_url: `${RELAY}/v1/logo?signature=expired` });
    await settle();
    const button = launchers()[0]!.shadowRoot!.querySelector('button')!;
    const logo = button.querySelector('img')!;
    expect(logo.getAttribute('src')).toBe(`${RELAY}/v1/logo?signature=expired`);
    expect(logo.getAttribute('alt')).toBe('');
    logo.dispatchEvent(new Event('error'));
    expect(button.querySelector('img')).toBeNull();
    expect(button.querySelector('svg')).not.toBeNull();
  });

  it('shows the icon, not a logo from anywhere but the relay', async () => {
    start({ ...allowed, logo_url: 'https://cdn.example/logo.png' });
    await settle();
    const button = launchers()[0]!.shadowRoot!.querySelector('button')!;
    expect([button.querySelector('img'), button.querySelector('svg') !== null]).toEqual([null, true]);
  });

  it("fails closed on a trailing-dot host, whose panel the relay's frame-ancestors would refuse", async () => {
    win().happyDOM.setURL('https://www.smile-dental.test./services');
    const { reports } = start({ ...allowed, domains: ['www.smile-dental.test', '*.smile-dental.test'] });
    await settle();
    expect(launchers()).toHaveLength(0);
    expect(reports).toEqual([`${REPORT_PREFIX}www.smile-dental.test. is not an allowed domain`]);
  });

  it('passes data-locale to the relay, and shows the label, language and direction the relay answers', async () => {
    document.body.innerHTML = '';
    addScriptTag('data-client-id="smile-dental" data-locale="ar-EG"');
    const { requests } = start({
      ...allowed,
      launcher: { ...allowed.launcher, label: 'الدردشة مع Sunny', locale: 'ar', dir: 'rtl' },
    });
    await settle();
    expect(requests).toEqual([`${RELAY}/v1/webchat-configuration?client_id=smile-dental&locale=ar-EG`]);
    const host = launchers()[0]!;
    expect([host.getAttribute('lang'), host.getAttribute('dir')]).toEqual(['ar', 'rtl']);
    expect(host.shadowRoot!.querySelector('button')!.getAttribute('aria-label')).toBe('الدردشة مع Sunny');
    (win().PracticeChat as PracticeChatApi).open();
    await settle();
    const frame = frameOf()!;
    expect(frame.title).toBe('الدردشة مع Sunny');
    // The frame gets the relay's choice, not the tag as the page wrote it.
    expect(new URL(frame.src).searchParams.get('locale')).toBe('ar');
  });
});

describe("the frame's code", () => {
  /** A loadFrame whose answers the test settles, and the messages the frames it made were sent. */
  function controlledLoad() {
    const loads: Array<{ resolve(module: { default: typeof createChatFrame }): void; reject(): void }> = [];
    const posted: string[] = [];
    const loadFrame = () =>
      new Promise<{ default: typeof createChatFrame }>((resolve, reject) => loads.push({ resolve, reject }));
    const recording: typeof createChatFrame = (...args) => {
      const frame = createChatFrame(...args);
      const post: typeof frame.post = (message) => {
        posted.push(message.type);
        frame.post(message);
      };
      return { ...frame, post };
    };
    return { loads, posted, loadFrame, recording };
  }
  const button = () => launchers()[0]!.shadowRoot!.querySelector('button')!;
  /** Stands in for the frame's window, which happy-dom does not load. */
  const speakAsFrame = () => {
    const frameWindow = { postMessage() {} };
    Object.defineProperty(frameOf()!, 'contentWindow', { value: frameWindow });
    return frameWindow;
  };
  const fromFrame = (source: object, data: unknown) =>
    window.dispatchEvent(new MessageEvent('message', { origin: RELAY, source: source as MessageEventSource, data }));

  it('is fetched once on the first intent, and a click before it arrives opens the panel when it does', async () => {
    const { loads, posted, loadFrame, recording } = controlledLoad();
    const seen: string[] = [];
    start(allowed, 200, loadFrame);
    await settle();
    expect(loads).toHaveLength(0);
    button().dispatchEvent(new Event('pointerenter'));
    button().dispatchEvent(new Event('focus'));
    button().click();
    (win().PracticeChat as PracticeChatApi).on('close', () => seen.push('close'));
    expect(loads).toHaveLength(1);
    // The launcher and the page's events follow the click at once; the frame is loading, hidden, and hears of the open
    // once its code is here.
    expect([button().getAttribute('aria-expanded'), frameOf()?.hidden, posted]).toEqual(['true', true, []]);
    loads[0]!.resolve({ default: recording });
    await settle();
    expect(posted).toEqual(['open']);
    // Shown once its page says the panel is ready (happy-dom loads no page: the test speaks for the frame).
    expect(frameOf()!.hidden).toBe(true);
    fromFrame(speakAsFrame(), envelope({ type: 'ready' }));
    await settle();
    expect(frameOf()!.hidden).toBe(false);
    button().click();
    expect([posted, seen]).toEqual([['open', 'close'], ['close']]);
  });

  it('is fetched on open() from the page, with no intent on the launcher', async () => {
    const { loads, posted, loadFrame, recording } = controlledLoad();
    start(allowed, 200, loadFrame);
    await settle();
    (win().PracticeChat as PracticeChatApi).open();
    expect(loads).toHaveLength(1);
    loads[0]!.resolve({ default: recording });
    await settle();
    expect([frameOf() != null, posted]).toEqual([true, ['open']]);
  });

  it('that fails to arrive leaves the launcher, says so in one console line, and is asked for again on the next intent', async () => {
    const { loads, loadFrame } = controlledLoad();
    const { reports } = start(allowed, 200, loadFrame);
    await settle();
    button().dispatchEvent(new Event('focus'));
    button().dispatchEvent(new Event('pointerenter'));
    loads[0]!.reject();
    await settle();
    const frame = frameOf();
    expect([reports, launchers().length, frame?.isConnected]).toEqual([[FRAME_REPORT], 1, true]);
    button().dispatchEvent(new Event('pointerenter'));
    expect(loads).toHaveLength(2);
    loads[1]!.resolve({ default: createChatFrame });
    await settle();
    // The same frame, which went on loading meanwhile, and no second one.
    expect([reports.length, frameOf(), launchers()[0]!.shadowRoot!.querySelectorAll('iframe').length]).toEqual([
      1,
      frame,
      1,
    ]);
  });

  it('that arrives after destroy() does nothing: the frame went with the launcher', async () => {
    const { loads, loadFrame, posted, recording } = controlledLoad();
    start(allowed, 200, loadFrame);
    await settle();
    button().dispatchEvent(new Event('focus'));
    button().click();
    const frame = frameOf()!;
    (win().PracticeChat as PracticeChatApi).destroy();
    loads[0]!.resolve({ default: recording });
    await settle();
    expect([frame.isConnected, frame.hidden, posted]).toEqual([false, true, []]);
  });

  it("hears what the frame said before its code came, and only what its own frame said from the relay's origin", async () => {
    const { loads, posted, loadFrame, recording } = controlledLoad();
    const unread: number[] = [];
    start(allowed, 200, loadFrame);
    await settle();
    (win().PracticeChat as PracticeChatApi).on('unread', (count) => unread.push(count));
    button().dispatchEvent(new Event('pointerenter'));
    const frameWindow = speakAsFrame();
    fromFrame(frameWindow, envelope({ type: 'ready' }));
    fromFrame(frameWindow, envelope({ type: 'unread', count: 3 }));
    fromFrame({}, envelope({ type: 'unread', count: 7 }));
    button().click();
    loads[0]!.resolve({ default: recording });
    await settle();
    expect([unread, button().getAttribute('aria-label'), posted]).toEqual([[3], 'Chat with Sunny (3)', ['open']]);
  });

  it("removes its listener of the page's messages on destroy(), also before the frame's code came", async () => {
    const { loadFrame } = controlledLoad();
    start(allowed, 200, loadFrame);
    await settle();
    const added = vi.spyOn(window, 'addEventListener');
    const removed = vi.spyOn(window, 'removeEventListener');
    button().dispatchEvent(new Event('focus'));
    const listeners = added.mock.calls.filter(([type]) => type === 'message').map(([, listener]) => listener);
    expect(listeners).toHaveLength(1);
    (win().PracticeChat as PracticeChatApi).destroy();
    expect(removed.mock.calls.filter(([type]) => type === 'message').map(([, listener]) => listener)).toEqual(
      listeners,
    );
    added.mockRestore();
    removed.mockRestore();
  });
});
