import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { accessibleAccent } from '../../shared/contrast.ts';
import type { WebchatConfiguration } from '../../shared/configuration.ts';
import type { Locale, Strings } from '../i18n.ts';
import type { ChatModel } from '../model/chat-model.ts';
import { Composer } from './Composer.tsx';
import { Greeting } from './Greeting.tsx';
import { Header } from './Header.tsx';
import { coversPage, wrapTab } from '../covers-page.ts';
import { MessageList } from './MessageList.tsx';
import { StatusAnnouncer } from './StatusAnnouncer.tsx';
import { sentenceGap } from '../text/sentence-gap.ts';

export interface AppProps {
  model: ChatModel;
  configuration: WebchatConfiguration;
  strings: Strings;
  locale: Locale;
  maxLength: number;
  /** Asks the page to close the panel (the loader hides the frame and refocuses its launcher). */
  onClose: () => void;
  refreshLogo: () => Promise<string | null>;
  composerRef?: { current: HTMLTextAreaElement | null };
  /** The demo's preview: nothing goes to the practice. */
  preview?: boolean;
  /** Switches the panel's language, keeping the conversation; absent: no switch. */
  onLanguage?: (tag: Locale) => Promise<boolean>;
  /** The browser gives the frame no storage (a setting), so the conversation cannot resume elsewhere: say so. */
  storageUnavailable?: boolean;
}

export function App({
  model,
  configuration,
  strings,
  locale,
  maxLength,
  onClose,
  refreshLogo,
  composerRef,
  preview = false,
  storageUnavailable = false,
  onLanguage,
}: AppProps) {
  const ownRef = useRef<HTMLTextAreaElement>(null);
  const inputRef = composerRef ?? ownRef;
  const newChatRef = useRef<HTMLButtonElement>(null);
  const panelRef = useRef<HTMLDivElement>(null);
  // The demo's preview sits in the demo page beside its settings: never modal there. Read at each render and each key,
  // so a resized window is right by its next change.
  const covers = () => !preview && coversPage();
  // Where focus was before this render: an action that removes its own button (Talk to a person, End chat, Try
  // again, Start a new chat) would otherwise leave it on <body>, where a screen reader says nothing useful.
  const focusBefore = useRef<Element | null>(null);
  focusBefore.current = document.activeElement;
  const [escalationError, setEscalationError] = useState<string | null>(null);
  const accent = accessibleAccent(configuration.icon_color);
  const phase = model.phase.value;
  const finished = phase === 'resolved' || phase === 'ended';
  const botName = configuration.bot_name;
  const latest = model.announcement.value;
  // A new, empty conversation greets and suggests; its "Talk to a person" then sits among the suggestions.
  const greeting = phase === 'new' && model.messages.value.length === 0;

  // Keys heard at the document, so they work wherever focus is in the frame, its <body> included: WebKit leaves focus
  // there when it refuses the composer the caret (an open without a recent gesture), and a handler on
  // .panel never hears a key aimed at <body>. Escape closes; a character typed at <body> moves the caret into the
  // composer first (a key press is a gesture), and the browser then puts the character there.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') onClose();
      // Where the panel covers the page it is modal: Tab never reaches the launcher or the page hidden beneath it.
      // keyCode: WebKitGTK names Shift+Tab (its ISO_Left_Tab key) "Unidentified", but keeps Tab's code.
      else if (event.keyCode === 9 && panelRef.current && covers()) wrapTab(event, panelRef.current);
      else if (
        event.target === document.body &&
        event.key.length === 1 &&
        !event.ctrlKey &&
        !event.metaKey &&
        !event.altKey
      )
        inputRef.current?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [onClose]);

  // In the same task as the change, before the browser reports it to assistive technology: run later, focus rested on
  // <body> for a moment, which Orca spoke ("push button", "paragraph") and which made it drop the announcement made
  // at the same time ("This chat has ended.").
  useLayoutEffect(() => {
    const active = document.activeElement;
    if (focusBefore.current?.isConnected === false && (!active || active === document.body))
      (inputRef.current ?? newChatRef.current)?.focus();
  });

  async function escalate() {
    // Before the button goes, so focus never rests on <body> (nor stays on a button WebKit never focused on click).
    inputRef.current?.focus();
    const failure = await model.escalate();
    setEscalationError(failure === null ? null : strings.errors[failure]);
  }

  return (
    <div
      ref={panelRef}
      class="panel"
      role="dialog"
      aria-modal={covers()}
      aria-labelledby="chat-title"
      style={{ '--accent': accent.background, '--on-accent': accent.text }}
    >
      {/* Keyed by the logo, so a new configuration (the demo's preview) starts its logo checks afresh. */}
      <Header
        key={configuration.logo_url ?? ''}
        botName={botName}
        logoUrl={configuration.logo_url}
        strings={strings}
        locale={locale}
        onLanguage={onLanguage}
        refreshLogo={refreshLogo}
        onClose={onClose}
      />
      {preview && <p class="notice preview">{strings.preview}</p>}
      {storageUnavailable && !preview && <p class="notice no-resume">{strings.noResume}</p>}
      {/* Where the panel is short the notice shows its instruction, a whole sentence, and all of it when focused
          (adaptations.css): a Tab stop there. Never a line cut short: Persian ends "not for emergencies" with its
          negation, so a cut line can say the opposite of the notice. Screen readers read the whole notice, never the
          instruction twice. */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: focus is how a short panel's notice opens */}
      <p class="notice" tabIndex={innerHeight > 480 ? undefined : 0}>
        <span class="instruction" hidden aria-hidden="true">
          {strings.emergencyInstruction()}
        </span>
        <span>
          <strong>{strings.emergencyNotice()}</strong>
          {sentenceGap(strings.emergencyNotice())}
          {phase === 'escalated' ? strings.escalated : strings.automatedNotice(botName)}
        </span>
      </p>
      {greeting ? (
        <Greeting
          botName={botName}
          strings={strings}
          // The picked button disappears with the greeting: keyboard focus moves on to the composer.
          onSuggest={(text) => (model.send(text), inputRef.current?.focus())}
          onTalkToPerson={escalate}
        />
      ) : (
        <MessageList
          messages={model.messages.value}
          strings={strings}
          locale={locale}
          onRetry={model.retry}
          greeting={strings.greeting(botName)}
        />
      )}
      {model.typing.value && (
        <p class="typing" aria-hidden="true">
          <span class="dots" />{' '}
          {model.agentName.value === '' ? strings.agentTyping : strings.typing(model.agentName.value ?? botName)}
        </p>
      )}
      {model.connectionTrouble.value && <p class="notice trouble">{strings.retrying}</p>}
      {escalationError && <p class="notice trouble">{escalationError}</p>}
      {/* Announces each new reply once; the history is never read out again. */}
      <div class="visually-hidden" aria-live="polite" aria-atomic="true">
        {latest
          ? // The author as the conversation labels them: a screen reader hears "(automated)" as a sighted patient reads it.
            strings.newMessageAnnouncement(
              (latest.sender === 'agent' ? strings.agentLabel : strings.botLabel)(latest.authorName),
              latest.text,
            )
          : ''}
      </div>
      <StatusAnnouncer model={model} strings={strings} />
      {finished ? (
        <div class="ended">
          <p>{phase === 'resolved' ? strings.resolved : strings.ended}</p>
          <button ref={newChatRef} type="button" class="primary" onClick={model.startNewChat}>
            {strings.newChat}
          </button>
        </div>
      ) : (
        <>
          <div class="actions">
            {phase !== 'escalated' && !greeting && (
              <button type="button" class="secondary" onClick={escalate}>
                {strings.talkToPerson}
              </button>
            )}
            {phase !== 'new' && (
              <button type="button" class="secondary" onClick={model.endChat}>
                {strings.endChat}
              </button>
            )}
          </div>
          <Composer
            strings={strings}
            maxLength={maxLength}
            onSend={model.send}
            inputRef={inputRef}
            describedBy={greeting ? 'greeting' : undefined}
          />
        </>
      )}
    </div>
  );
}
