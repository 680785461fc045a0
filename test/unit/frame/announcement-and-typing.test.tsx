// @vitest-environment happy-dom
// The words around a reply: the live region's announcement joins author and text with each language's own
// punctuation (from its catalog), and the typing line names whoever is answering: the bot, or after the hand-off the
// team member (by name once they have written, else in neutral words).
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/preact';
import { App } from '../../../src/frame/components/App.tsx';
import type { LocaleTag } from '../../../src/shared/locales/locale-list.ts';
import { POLL_FAST_MS } from '../../../src/frame/model/poll-cadence.ts';
import { STRINGS } from './strings.ts';
import { CATALOGS } from '../../../src/shared/locales/catalogs.ts';
import { configuration, createTestModel, settle } from './fakes.ts';

afterEach(cleanup);

function renderPanel(locale: LocaleTag = 'en') {
  const test = createTestModel();
  test.model.setPanelOpen(true);
  render(
    <App
      model={test.model}
      configuration={configuration}
      strings={STRINGS[locale]}
      locale={locale}
      maxLength={2000}
      onClose={() => undefined}
      refreshLogo={async () => null}
    />,
  );
  return test;
}

const liveRegion = () => document.querySelector('[aria-live="polite"]')!.textContent;
const typingLine = () => document.querySelector('.typing')?.textContent?.trim() ?? null;

describe('the announcement of a reply', () => {
  // The bot is announced as automated, as its messages are labelled on screen: a team member is announced as one.
  it.each([
    ['en', 'New message from Aimee (automated): We open at 8.'],
    // Right-to-left: the name and the author as a whole are isolated, the colon is the one Arabic writes.
    ['ar', 'رسالة جديدة من \u2068\u2068Aimee\u2069 (رد آلي)\u2069: We open at 8.'],
    // Japanese joins with a full-width colon and no space.
    ['ja', 'Aimee（自動応答）からの新しいメッセージ：We open at 8.'],
    ['zh-Hans', '来自 Aimee（自动回复） 的新消息：We open at 8.'],
    // French puts a no-break space before the colon, and no "de" before the name, which would elide before a vowel.
    ['fr', 'Nouveau message envoyé par Aimee (automatique)\u00a0: We open at 8.'],
  ] as const)('%s: %s', async (locale, announced) => {
    const { model, relay, clock } = renderPanel(locale);
    model.send('hours?');
    await settle();
    relay.reply('handle-1', 'We open at 8.');
    await clock.advance(POLL_FAST_MS);
    expect(liveRegion()).toBe(announced);
  });
});

describe.each(Object.keys(STRINGS) as LocaleTag[])('the announcement of a reply in %s', (locale) => {
  it("names the bot with its label's words for automated", async () => {
    const { model, relay, clock } = renderPanel(locale);
    model.send('hours?');
    await settle();
    relay.reply('handle-1', 'We open at 8.');
    await clock.advance(POLL_FAST_MS);
    const automated = CATALOGS[locale].botLabel.replace('{name}', '').trim();
    expect(liveRegion()).toContain(automated);
    expect(liveRegion()).toBe(
      STRINGS[locale].newMessageAnnouncement(STRINGS[locale].botLabel('Aimee'), 'We open at 8.'),
    );
  });
});

describe('the typing line', () => {
  it('names the bot until the hand-off, then a team member in neutral words, then the one who wrote', async () => {
    const { model, relay, clock } = renderPanel();
    model.send('hello');
    await settle();
    expect(typingLine()).toBe('Aimee is typing…');
    fireEvent.click(screen.getByRole('button', { name: 'Talk to a person' }));
    await settle();
    model.send('is anyone there?');
    await settle();
    expect(typingLine()).toBe('A team member is typing…');
    relay.reply('handle-1', 'Hi, this is Maria.', 'agent');
    await clock.advance(POLL_FAST_MS);
    expect(typingLine()).toBeNull();
    model.send('thanks');
    await settle();
    expect(typingLine()).toBe('Maria is typing…');
  });

  it('has the neutral words in every language', () => {
    for (const strings of Object.values(STRINGS)) expect(strings.agentTyping.trim()).not.toBe('');
  });
});
