// @vitest-environment happy-dom
// The loader's title prefix for replies that arrived while the page was hidden: the count the frame reports, as
// "(N) " before the page's title and nothing else, removed when the frame says the page is seen again (or on
// destroy), never from a message that does not parse, and never with data-title-alert="off".
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createChatFrame } from '../../../src/loader/frame.ts';
import { boot } from '../../../src/loader/boot.ts';
import type { PracticeChatApi } from '../../../src/loader/api.ts';
import { envelope } from '../../../src/shared/protocol.ts';
import { smileDentalAnswer as configuration } from '../../support/configurations.ts';
import { addScriptTag, RELAY } from '../../support/loader-boot.ts';

type TestWindow = Window & { PracticeChat?: unknown; happyDOM: { setURL(url: string): void } };
const win = () => window as unknown as TestWindow;
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

/** Boots the loader from a tag with these attributes, creates its frame, and answers a way to speak as the frame. */
async function start(attributes = '') {
  addScriptTag(`data-client-id="smile-dental" ${attributes}`);
  boot({
    win: win(),
    fetch: (async () => new Response(JSON.stringify(configuration))) as typeof fetch,
    wait: async () => {},
    report: () => {},
    loadFrame: async () => createChatFrame,
  });
  await settle();
  const host = document.querySelector('practice-chat')!;
  host.shadowRoot!.querySelector('button')!.dispatchEvent(new Event('focus'));
  // The frame's code arrives (here at once, from source) a moment after the intent.
  await settle();
  // The test stands in for the frame's window, which happy-dom does not load.
  const frameWindow = { postMessage() {} };
  Object.defineProperty(host.shadowRoot!.querySelector('iframe')!, 'contentWindow', { value: frameWindow });
  return (data: unknown, origin = RELAY) =>
    window.dispatchEvent(
      new MessageEvent('message', { origin, source: frameWindow as unknown as MessageEventSource, data }),
    );
}

beforeEach(() => {
  win().happyDOM.setURL('https://www.smile-dental.test/');
  document.body.innerHTML = '';
  document.title = 'Smile Dental';
  delete win().PracticeChat;
});
afterEach(() => (win().PracticeChat as PracticeChatApi | undefined)?.destroy?.());

describe('the title prefix', () => {
  it('puts the count before the title while the frame reports one, and takes it away at 0', async () => {
    const fromFrame = await start();
    fromFrame(envelope({ type: 'alert', count: 1 }));
    expect(document.title).toBe('(1) Smile Dental');
    fromFrame(envelope({ type: 'alert', count: 2 }));
    expect(document.title).toBe('(2) Smile Dental');
    fromFrame(envelope({ type: 'alert', count: 0 }));
    expect(document.title).toBe('Smile Dental');
  });

  it('keeps a title the page changed meanwhile', async () => {
    const fromFrame = await start();
    fromFrame(envelope({ type: 'alert', count: 1 }));
    document.title = 'Our services';
    fromFrame(envelope({ type: 'alert', count: 2 }));
    expect(document.title).toBe('(2) Our services');
    fromFrame(envelope({ type: 'alert', count: 0 }));
    expect(document.title).toBe('Our services');
  });

  it('takes nothing but a count: anything else, or from anywhere else, leaves the title alone', async () => {
    const fromFrame = await start();
    fromFrame({ ...envelope({ type: 'alert', count: 0 }), count: 'Your test results are ready' });
    fromFrame({ ...envelope({ type: 'alert', count: 1 }), text: 'Your test results are ready' });
    expect(document.title).toBe('(1) Smile Dental');
    fromFrame(envelope({ type: 'alert', count: 0 }));
    fromFrame(envelope({ type: 'alert', count: 3 }), 'https://evil.example');
    fromFrame({ type: 'alert', count: 3 });
    expect(document.title).toBe('Smile Dental');
  });

  it('is off with data-title-alert="off"', async () => {
    const fromFrame = await start('data-title-alert="off"');
    fromFrame(envelope({ type: 'alert', count: 1 }));
    expect(document.title).toBe('Smile Dental');
  });
});
