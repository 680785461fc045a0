// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/preact';
import { App } from '../../../src/frame/components/App.tsx';
import { STRINGS } from './strings.ts';
import { TransportError } from '../../../src/frame/transport.ts';
import { configuration, createTestModel, settle } from './fakes.ts';

afterEach(cleanup);

function renderPanel(options: { logoUrl?: string | null; refreshLogo?: () => Promise<string | null> } = {}) {
  const test = createTestModel();
  const closes: number[] = [];
  test.model.setPanelOpen(true);
  render(
    <App
      model={test.model}
      configuration={{ ...configuration, logo_url: options.logoUrl ?? null }}
      strings={STRINGS.en}
      locale="en"
      maxLength={2000}
      onClose={() => closes.push(1)}
      refreshLogo={options.refreshLogo ?? (async () => null)}
    />,
  );
  const composer = () => screen.getByRole('textbox', { name: 'Message' }) as HTMLTextAreaElement;
  const type = (text: string) => fireEvent.input(composer(), { target: { value: text } });
  const pressEnter = (shiftKey = false) => fireEvent.keyDown(composer(), { key: 'Enter', shiftKey });
  return { ...test, closes, composer, type, pressEnter };
}

describe('the panel', () => {
  it('is a labelled dialog with the emergency notice always visible', () => {
    renderPanel();
    expect(screen.getByRole('dialog', { name: 'Chat with Aimee' })).toBeTruthy();
    expect(
      screen.getByText('Not for emergencies. In an emergency, call 911 or go to the nearest emergency room.'),
    ).toBeTruthy();
    expect(screen.getByText(/Aimee is an automated assistant until a team member joins/)).toBeTruthy();
  });

  it('sends on Enter, breaks the line on Shift+Enter', async () => {
    const { type, pressEnter, relay, composer } = renderPanel();
    type('first line');
    pressEnter(true);
    expect(relay.calls).toEqual([]);
    pressEnter();
    await settle();
    expect(relay.visitorMessages('handle-1').map((message) => message.text)).toEqual(['first line']);
    expect(composer().value).toBe('');
    expect(composer().style.fontSize || getComputedStyle(composer()).fontSize).not.toBe('12px');
  });

  it('Enter sends what the textarea holds even before the last keystroke has rendered', async () => {
    const { relay, composer, pressEnter } = renderPanel();
    // The value is in the textarea but no input event has reached the state yet (a fast paste-and-Enter).
    composer().value = 'typed faster than a render';
    pressEnter();
    await settle();
    expect(relay.visitorMessages('handle-1').map((message) => message.text)).toEqual(['typed faster than a render']);
  });

  it('renders only safe links; javascript: and data: stay text, and nothing is rendered as HTML', async () => {
    const { model, relay, clock } = renderPanel();
    model.send('hi');
    await settle();
    relay.reply(
      'handle-1',
      'Book at https://smile.example/book or mailto:front@smile.example, not javascript:alert(1) or data:text/html,<b>x</b> <img src=x onerror=alert(1)>',
    );
    await clock.advance(1000);
    const link = screen.getByRole('link', { name: 'https://smile.example/book' });
    expect(link.getAttribute('href')).toBe('https://smile.example/book');
    expect(link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(link.getAttribute('target')).toBe('_blank');
    expect(screen.getAllByRole('link').map((a) => a.getAttribute('href'))).toEqual([
      'https://smile.example/book',
      'mailto:front@smile.example',
    ]);
    expect(document.querySelector('img[src="x"]')).toBeNull();
    expect(document.querySelector('.messages')!.textContent).toContain(
      'not javascript:alert(1) or data:text/html,<b>x</b> <img src=x onerror=alert(1)>',
    );
    // The live region announces the reply once, as text.
    expect(document.querySelector('[aria-live="polite"]')!.textContent).toMatch(
      /^New message from Aimee \(automated\): Book at/,
    );
  });

  it('warns gently before sending something that looks like a card number, and sends only when asked', async () => {
    const { type, pressEnter, relay } = renderPanel();
    type('my card is 4111 1111 1111 1111');
    pressEnter();
    const dialog = screen.getByRole('dialog', { name: 'Check before sending' });
    expect(dialog.textContent).toMatch(/card/i);
    await settle();
    expect(relay.calls).toEqual([]);
    fireEvent.click(screen.getByRole('button', { name: 'Send anyway' }));
    await settle();
    expect(relay.visitorMessages('handle-1')).toHaveLength(1);
  });

  it('lets the visitor edit instead of sending a social security number', async () => {
    const { type, pressEnter, relay, composer } = renderPanel();
    type('ssn 123-45-6789');
    pressEnter();
    fireEvent.click(screen.getByRole('button', { name: 'Edit message' }));
    await settle();
    expect(relay.calls).toEqual([]);
    expect(composer().value).toBe('ssn 123-45-6789');
    expect(screen.queryByRole('dialog', { name: 'Check before sending' })).toBeNull();
  });

  it('shows a failed message with a retry button that sends it once', async () => {
    const { type, pressEnter, relay, clock } = renderPanel();
    for (let i = 0; i < 6; i++) relay.failures.push(new TransportError('network'));
    type('call me');
    pressEnter();
    await clock.advance(10 * 60_000);
    expect(screen.getByText('Not sent.', { exact: false, selector: '.failed' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    await settle();
    expect(relay.visitorMessages('handle-1').map((message) => message.text)).toEqual(['call me']);
    expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull();
  });

  it('shows the counter near the length limit', () => {
    const { type } = renderPanel();
    expect(screen.queryByText(/characters left/)).toBeNull();
    type('x'.repeat(1900));
    expect(screen.getByText('100 characters left')).toBeTruthy();
  });

  it('shows the typing indicator while a reply is awaited', async () => {
    const { type, pressEnter } = renderPanel();
    type('hello');
    pressEnter();
    await settle();
    expect(screen.getByText('Aimee is typing…')).toBeTruthy();
  });

  it('escalates: says a team member has been asked, and labels their messages', async () => {
    const { relay, clock } = renderPanel();
    fireEvent.click(screen.getByRole('button', { name: 'Talk to a person' }));
    await settle();
    expect(screen.getByText(/A team member has been asked to join/, { selector: '.notice span' })).toBeTruthy();
    relay.reply('handle-1', 'Hi, this is Maria.', 'agent');
    await clock.advance(1000);
    expect(screen.getByText('Maria (team member)')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Talk to a person' })).toBeNull();
  });

  it('ends the chat and offers a new one', async () => {
    const { type, pressEnter } = renderPanel();
    type('hello');
    pressEnter();
    await settle();
    fireEvent.click(screen.getByRole('button', { name: 'End chat' }));
    expect(screen.getByText('This chat has ended.', { selector: '.ended p' })).toBeTruthy();
    expect(screen.queryByText('hello')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Start a new chat' }));
    expect(screen.getByRole('textbox', { name: 'Message' })).toBeTruthy();
  });

  it('closes on Escape and with the close button', () => {
    const { closes, composer } = renderPanel();
    fireEvent.keyDown(composer(), { key: 'Escape' });
    fireEvent.click(screen.getByRole('button', { name: 'Close chat' }));
    expect(closes).toHaveLength(2);
  });

  // WebKit can leave focus on the frame's <body> (issue 21): keys aimed there must still work.
  it('closes on an Escape aimed at <body>, and a character typed at <body> moves the caret into the composer first', () => {
    const { closes, composer } = renderPanel();
    fireEvent.keyDown(document.body, { key: 'Escape' });
    expect(closes).toHaveLength(1);
    fireEvent.keyDown(document.body, { key: 'Control', ctrlKey: true });
    fireEvent.keyDown(document.body, { key: 'c', ctrlKey: true });
    expect(document.activeElement).not.toBe(composer());
    fireEvent.keyDown(document.body, { key: 'H' });
    expect(document.activeElement).toBe(composer());
  });

  it('asks for the configuration once when the logo fails, then shows the initial', async () => {
    let refreshes = 0;
    renderPanel({
      logoUrl: 'https://cdn.example/logo.png?sig=old',
      refreshLogo: async () => (refreshes++, 'https://cdn.example/logo.png?sig=old'),
    });
    fireEvent.error(document.querySelector('img.avatar')!);
    await settle();
    expect(refreshes).toBe(1);
    expect(document.querySelector('img.avatar')).toBeNull();
    expect(document.querySelector('.avatar.initial')?.textContent).toBe('A');
  });

  it('uses a fresh logo URL when the configuration has one', async () => {
    renderPanel({
      logoUrl: 'https://cdn.example/logo.png?sig=old',
      refreshLogo: async () => 'https://cdn.example/logo.png?sig=new',
    });
    fireEvent.error(document.querySelector('img.avatar')!);
    await settle();
    expect(document.querySelector('img.avatar')?.getAttribute('src')).toBe('https://cdn.example/logo.png?sig=new');
  });
});

describe('the panel when the browser gives it no storage', () => {
  for (const locale of ['en', 'es'] as const) {
    it(`says in one line (${locale}) that the chat will not continue on another page, and only then`, () => {
      const test = createTestModel();
      const props = {
        model: test.model,
        configuration,
        strings: STRINGS[locale],
        locale,
        maxLength: 2000,
        onClose: () => {},
        refreshLogo: async () => null,
      };
      const { unmount } = render(<App {...props} storageUnavailable />);
      const line = screen.getByText(STRINGS[locale].noResume);
      expect(line.tagName).toBe('P');
      expect(STRINGS[locale].noResume).toMatch(locale === 'en' ? /another page/ : /otra página/);
      unmount();
      render(<App {...props} />);
      expect(screen.queryByText(STRINGS[locale].noResume)).toBeNull();
    });
  }
});
