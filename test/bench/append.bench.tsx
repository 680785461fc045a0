// @vitest-environment happy-dom
// npm run bench: what appending one message costs the panel at 50 and at 5,000 messages, in the same run, so the
// two are compared on the same (shared, noisy) machine. Timings live here, never in a test.
import { bench, describe } from 'vitest';
import { render } from 'preact';
import { signal } from '@preact/signals';
import { MessageList } from '../../src/frame/components/MessageList.tsx';
import { STRINGS } from '../unit/frame/strings.ts';
import type { ChatMessage } from '../../src/frame/model/message-list.ts';

const message = (index: number): ChatMessage => ({
  key: `m-${index}`,
  id: `m-${index}`,
  sequence: index + 1,
  sender: index % 2 === 0 ? 'visitor' : 'bot',
  authorName: 'Aimee',
  text: `Message ${index}: see https://smile.example/page/${index} for details.`,
  createdAt: '2026-11-22T10:00:00Z',
  delivery: index % 2 === 0 ? 'sent' : null,
});

function conversationOf(size: number) {
  const root = document.createElement('div');
  document.body.append(root);
  const messages = signal(Array.from({ length: size }, (_, index) => message(index)));
  const List = () => <MessageList messages={messages.value} strings={STRINGS.en} locale="en" onRetry={() => {}} />;
  render(<List />, root);
  let next = size;
  return () => {
    messages.value = [...messages.value, message(next++)];
    render(<List />, root);
  };
}

describe('appending a message', () => {
  const append50 = conversationOf(50);
  const append5000 = conversationOf(5000);
  bench('to a 50-message conversation', () => append50(), { iterations: 200 });
  bench('to a 5,000-message conversation', () => append5000(), { iterations: 200 });
});
