import type { Strings } from '../i18n.ts';

interface GreetingProps {
  botName: string;
  strings: Strings;
  /** Sends a suggestion's words as the visitor's first message. */
  onSuggest: (text: string) => void;
  /** Asks for a person straight away: the same action as the panel's own "Talk to a person". */
  onTalkToPerson: () => void;
}

/**
 * The welcome a new conversation opens with. It is the panel's own text: nothing goes upstream, and no conversation
 * exists, until the visitor writes or picks a suggestion.
 */
export function Greeting({ botName, strings, onSuggest, onTalkToPerson }: GreetingProps) {
  return (
    <section class="messages greeting" aria-label={strings.conversationLabel}>
      <p id="greeting" class="bubble">
        {strings.greeting(botName)}
      </p>
      <ul class="suggestions" aria-label={strings.suggestionsLabel}>
        {strings.suggestions.map((text) => (
          <li key={text}>
            <button type="button" class="suggestion" onClick={() => onSuggest(text)}>
              {text}
            </button>
          </li>
        ))}
        <li>
          <button type="button" class="suggestion" onClick={onTalkToPerson}>
            {strings.talkToPerson}
          </button>
        </li>
      </ul>
    </section>
  );
}
