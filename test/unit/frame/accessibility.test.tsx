// @vitest-environment happy-dom
// What a screen reader hears and where keyboard focus goes, in the panel's own DOM: each change a patient must know of
// reaches a live region once, in the panel's language, and no action leaves focus on <body>. The same behaviour is
// checked in real engines by test/browser/accessibility.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/preact';
import { App } from '../../../src/frame/components/App.tsx';
import type { Locale } from '../../../src/frame/i18n.ts';
import { TransportError } from '../../../src/frame/transport.ts';
import { STRINGS } from './strings.ts';
import { configuration, createTestModel, settle } from './fakes.ts';

afterEach(cleanup);

function renderPanel(locale: Locale = 'en') {
  const test = createTestModel();
  const closes: number[] = [];
  test.model.setPanelOpen(true);
  render(
    <App
      model={test.model}
      configuration={configuration}
      strings={STRINGS[locale]}
      locale={locale}
      maxLength={2000}
      onClose={() => closes.push(1)}
      refreshLogo={async () => null}
    />,
  );
  const composer = () => screen.getByRole('textbox') as HTMLTextAreaElement;
  const type = (text: string) => fireEvent.input(composer(), { target: { value: text } });
  const pressEnter = () => fireEvent.keyDown(composer(), { key: 'Enter' });
  /** Every text the status regions have held, in order: what a screen reader would have been told. */
  const heard: string[] = [];
  /** The region each of those was said in, in the same order. */
  const heardIn: Element[] = [];
  // One entry per region a commit changed (replacing a node is a removal and an addition: one announcement).
  const observer = new MutationObserver((records) => {
    const changed = new Set<Element>();
    for (const record of records) {
      const node = record.target instanceof Element ? record.target : record.target.parentElement;
      const region = node?.closest('[aria-live]');
      if (region) changed.add(region);
    }
    // The replies' own region ("New message from …") is tested in app.test.tsx.
    for (const region of changed)
      if (region.textContent && !/^New message from|^رسالة جديدة/.test(region.textContent)) {
        heard.push(`${region.getAttribute('aria-live')}: ${region.textContent}`);
        heardIn.push(region);
      }
  });
  observer.observe(document.body, { subtree: true, childList: true, characterData: true });
  const focused = () => {
    const active = document.activeElement;
    if (active?.tagName === 'TEXTAREA') return 'TEXTAREA';
    return active === document.body || active === null
      ? 'BODY'
      : `${active.tagName} ${active.textContent || active.getAttribute('aria-label') || ''}`.trim();
  };
  return { ...test, closes, composer, type, pressEnter, heard, heardIn, focused };
}

/** A click that, as in a browser, first gives the button focus. */
function press(name: string) {
  const button = screen.getByRole('button', { name });
  button.focus();
  fireEvent.click(button);
}

describe('announcements', () => {
  it('the escalation is announced once, politely', async () => {
    const { heard, type, pressEnter, clock } = renderPanel();
    type('hello');
    pressEnter();
    await settle();
    press('Talk to a person');
    await settle();
    await clock.advance(5000);
    expect(heard).toEqual(['polite: A team member has been asked to join. They will reply here.']);
  });

  it('connection trouble, its recovery, and a send that failed are announced; the failure assertively; the retry too', async () => {
    const { heard, heardIn, relay, clock, type, pressEnter } = renderPanel();
    relay.failures.push(new TransportError('network'));
    type('first');
    pressEnter();
    await settle();
    await clock.advance(60_000);
    expect(heard).toEqual(['polite: Connection problem — retrying…', 'polite: Connection restored.']);
    heard.length = 0;
    // Enough failures for every attempt (the follow-up reads take some too); none left for the patient's retry.
    for (let i = 0; i < 20; i++) relay.failures.push(new TransportError('network'));
    type('second');
    pressEnter();
    await clock.advance(10 * 60_000);
    expect(heard).toEqual(['polite: Connection problem — retrying…', 'assertive: Not sent. Try again']);
    heard.length = 0;
    heardIn.length = 0;
    relay.failures.length = 0;
    press('Try again');
    await settle();
    expect(heard).toEqual(['polite: Sending…', 'polite: Connection restored.']);
    // In two regions: Orca, behind on its queue, drops a region's older text change when a newer one in the same
    // region waits, and "Sending…" was never spoken.
    expect(heardIn[0]).not.toBe(heardIn[1]);
  });

  it('the end of a chat and a conversation the practice resolved are announced assertively', async () => {
    const { heard, type, pressEnter, model } = renderPanel();
    type('hello');
    pressEnter();
    await settle();
    press('End chat');
    await settle();
    expect(heard).toEqual(['assertive: This chat has ended.']);
    heard.length = 0;
    press('Start a new chat');
    model.phase.value = 'resolved';
    await settle();
    expect(heard).toEqual(['assertive: The practice has closed this conversation.']);
  });

  it('speaks the patient’s language (Arabic)', async () => {
    const { heard } = renderPanel('ar');
    press('التحدث إلى شخص');
    await settle();
    expect(heard).toEqual([`polite: ${STRINGS.ar.escalated}`]);
  });
});

describe('focus after actions that remove their own button', () => {
  it('Talk to a person: the composer', async () => {
    const { focused, type, pressEnter } = renderPanel();
    type('hello');
    pressEnter();
    await settle();
    press('Talk to a person');
    await settle();
    expect(screen.queryByRole('button', { name: 'Talk to a person' })).toBeNull();
    expect(focused()).toBe('TEXTAREA');
  });

  it('End chat: Start a new chat; Start a new chat: the composer, once it exists', async () => {
    const { focused, type, pressEnter } = renderPanel();
    type('hello');
    pressEnter();
    await settle();
    press('End chat');
    await settle();
    expect(focused()).toBe('BUTTON Start a new chat');
    press('Start a new chat');
    await settle();
    expect(focused()).toBe('TEXTAREA');
  });

  it('Try again: the composer', async () => {
    const { focused, relay, clock, type, pressEnter } = renderPanel();
    for (let i = 0; i < 6; i++) relay.failures.push(new TransportError('network'));
    type('call me');
    pressEnter();
    await clock.advance(10 * 60_000);
    press('Try again');
    await settle();
    expect(focused()).toBe('TEXTAREA');
  });

  it('Send anyway: the composer', async () => {
    const { focused, type, pressEnter } = renderPanel();
    type('my card is 4111 1111 1111 1111');
    pressEnter();
    press('Send anyway');
    await settle();
    expect(focused()).toBe('TEXTAREA');
  });
});

describe('the sensitive-data warning is a dialog', () => {
  it('takes focus to "Edit message"; Escape closes only the warning and returns to the composer with the text kept', async () => {
    const { focused, type, pressEnter, composer, closes } = renderPanel();
    type('my card is 4111 1111 1111 1111');
    pressEnter();
    await settle();
    expect(focused()).toBe('BUTTON Edit message');
    fireEvent.keyDown(document.activeElement!, { key: 'Escape' });
    await settle();
    expect(screen.queryByRole('dialog', { name: 'Check before sending' })).toBeNull();
    expect(closes).toEqual([]);
    expect(focused()).toBe('TEXTAREA');
    expect(composer().value).toBe('my card is 4111 1111 1111 1111');
    // With the warning gone, Escape closes the panel again.
    fireEvent.keyDown(composer(), { key: 'Escape' });
    expect(closes).toEqual([1]);
  });
});
