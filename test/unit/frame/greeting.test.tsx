// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/preact';
import { App } from '../../../src/frame/components/App.tsx';
import type { Locale } from '../../../src/frame/i18n.ts';
import { STRINGS } from './strings.ts';
import { configuration, createTestModel, settle } from './fakes.ts';

afterEach(cleanup);

/** What the fake relay received from the visitor, across every conversation. */
const visitorTexts = (relay: ReturnType<typeof createTestModel>['relay']) =>
  [...relay.conversations.values()].flatMap((found) =>
    found.messages.filter((message) => message.sender === 'visitor').map((message) => message.text),
  );

function renderPanel(locale: Locale = 'en', botName = 'Aimee') {
  const test = createTestModel();
  test.model.setPanelOpen(true);
  render(
    <App
      model={test.model}
      configuration={{ ...configuration, bot_name: botName }}
      strings={STRINGS[locale]}
      locale={locale}
      maxLength={2000}
      onClose={() => {}}
      refreshLogo={async () => null}
    />,
  );
  const suggestions = () =>
    within(screen.getByRole('list', { name: STRINGS[locale].suggestionsLabel })).getAllByRole('button');
  return { ...test, suggestions };
}

describe('the greeting on a new conversation', () => {
  it("greets in the assistant's name and suggests four topics, without calling the relay", async () => {
    const { relay, suggestions } = renderPanel('en', 'Robin');
    await settle();
    expect(screen.getByText("Hi, I'm Robin. How can I help?")).toBeTruthy();
    expect(suggestions().map((button) => button.textContent)).toEqual([
      'What are your opening hours?',
      "I'd like to book an appointment.",
      'I have a question about insurance or billing.',
      'Talk to a person',
    ]);
    // One "Talk to a person" in the panel: the suggestion, not a second copy in the actions row.
    expect(screen.getAllByRole('button', { name: 'Talk to a person' })).toHaveLength(1);
    expect(relay.calls).toEqual([]);
  });

  it('speaks Spanish in the Spanish panel', () => {
    const { suggestions } = renderPanel('es');
    expect(screen.getByText('Hola, soy Aimee. ¿En qué puedo ayudarle?')).toBeTruthy();
    expect(suggestions().map((button) => button.textContent)).toEqual([
      '¿Cuál es su horario de atención?',
      'Quisiera pedir una cita.',
      'Tengo una pregunta sobre seguros o facturación.',
      'Hablar con una persona',
    ]);
  });

  it("sends a suggestion's words as the first message, once, and moves focus to the composer", async () => {
    const { relay, suggestions } = renderPanel();
    fireEvent.click(suggestions()[1]!);
    await settle();
    expect(relay.calls.filter((call) => call === 'create')).toHaveLength(1);
    expect(relay.calls.filter((call) => call.startsWith('send '))).toHaveLength(1);
    expect(visitorTexts(relay)).toEqual(["I'd like to book an appointment."]);
    expect(screen.queryByRole('list', { name: 'Suggested questions' })).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole('textbox', { name: 'Message' }));
  });

  it("keeps the greeting above the conversation as the panel's own text: never sent or kept", async () => {
    const { relay, model } = renderPanel();
    fireEvent.input(screen.getByRole('textbox', { name: 'Message' }), { target: { value: 'hello' } });
    fireEvent.keyDown(screen.getByRole('textbox', { name: 'Message' }), { key: 'Enter' });
    await settle();
    expect(screen.getByText("Hi, I'm Aimee. How can I help?")).toBeTruthy();
    expect(screen.queryByRole('list', { name: 'Suggested questions' })).toBeNull();
    expect(model.messages.value.map((message) => message.text)).not.toContain("Hi, I'm Aimee. How can I help?");
    expect(visitorTexts(relay)).toEqual(['hello']);
  });

  it('"Talk to a person" asks for a person without sending words the patient did not write', async () => {
    const { relay, suggestions } = renderPanel();
    fireEvent.click(suggestions()[3]!);
    await settle();
    expect(relay.calls).toEqual(['create', 'escalate']);
    expect(screen.getByText(/A team member has been asked to join/, { selector: '.notice span' })).toBeTruthy();
  });
});
