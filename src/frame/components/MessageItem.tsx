import { formatTime, type Locale, type Strings } from '../i18n.ts';
import type { ChatMessage } from '../model/message-list.ts';
import { MessageText } from './MessageText.tsx';

interface MessageItemProps {
  message: ChatMessage;
  strings: Strings;
  locale: Locale;
  onRetry: (key: string) => void;
}

export function MessageItem({ message, strings, locale, onRetry }: MessageItemProps) {
  const author =
    message.sender === 'visitor'
      ? strings.visitorLabel
      : message.sender === 'agent'
        ? strings.agentLabel(message.authorName)
        : strings.botLabel(message.authorName);
  return (
    <li class={`message ${message.sender}`}>
      <span class="author">{author}</span>
      <MessageText text={message.text} />
      <span class="meta">
        <time dateTime={message.createdAt}>{formatTime(message.createdAt, locale)}</time>
        {message.delivery === 'sending' && <span> · {strings.sending}</span>}
        {message.delivery === 'retrying' && <span> · {strings.retrying}</span>}
        {message.delivery === 'failed' && (
          <>
            <span class="failed"> · {strings.failed} </span>
            <button type="button" class="link-button" onClick={() => onRetry(message.key)}>
              {strings.retry}
            </button>
          </>
        )}
      </span>
    </li>
  );
}
