import { useEffect, useRef, useState } from 'preact/hooks';
import type { Locale, Strings } from '../i18n.ts';
import type { ChatMessage } from '../model/message-list.ts';
import { MessageItem } from './MessageItem.tsx';

/** Only the latest messages are in the DOM, so a 5,000-message conversation appends as cheaply as a 50-message one. */
export const VISIBLE_PAGE = 100;

interface MessageListProps {
  messages: readonly ChatMessage[];
  strings: Strings;
  locale: Locale;
  onRetry: (key: string) => void;
  /** The panel's welcome, shown above the start of the conversation (never a stored message). */
  greeting?: string;
}

export function MessageList({ messages, strings, locale, onRetry, greeting }: MessageListProps) {
  const [shown, setShown] = useState(VISIBLE_PAGE);
  const list = useRef<HTMLDivElement>(null);
  const visible = messages.length > shown ? messages.slice(messages.length - shown) : messages;
  const last = messages.at(-1)?.key;

  useEffect(() => {
    // Scrolls only the list: scrollIntoView would also scroll the page the panel is embedded in.
    const element = list.current;
    if (element) element.scrollTop = element.scrollHeight;
  }, [last]);

  return (
    // Not a live region itself: a separate one announces each new reply once (see App), never the history.
    // Focusable because it scrolls: a keyboard user must be able to reach and scroll the history (axe's
    // scrollable-region-focusable), which the lint rule's idea of a non-interactive element does not foresee.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
    <section ref={list} class="messages" tabIndex={0} aria-label={strings.conversationLabel}>
      {messages.length > visible.length && (
        <button type="button" class="link-button earlier" onClick={() => setShown(shown + VISIBLE_PAGE)}>
          {strings.showEarlier}
        </button>
      )}
      {greeting && messages.length === visible.length && <p class="bubble">{greeting}</p>}
      <ol>
        {visible.map((message) => (
          <MessageItem key={message.key} message={message} strings={strings} locale={locale} onRetry={onRetry} />
        ))}
      </ol>
    </section>
  );
}
