// Which changes of the conversation's state a patient who cannot see the panel must be told of, and in which words:
// a pure comparison of two snapshots, so the rules are tested without a DOM. Replies are announced elsewhere (App),
// and typing is not announced at all: it comes and goes with every reply, and saying it would talk over the reply.
import type { Strings } from '../i18n.ts';
import type { ChatPhase } from './chat-model.ts';
import type { ChatMessage } from './message-list.ts';

export interface StatusSnapshot {
  phase: ChatPhase;
  connectionTrouble: boolean;
  /** The visitor's messages shown as not sent. */
  failed: number;
}

export interface Announcement {
  /** Said when the screen reader is free. */
  polite: string;
  /** Said at once: the patient may believe a message was sent, or keep typing into a chat that is over. */
  assertive: string;
}

export function statusOf(phase: ChatPhase, connectionTrouble: boolean, messages: readonly ChatMessage[]): StatusSnapshot {
  return { phase, connectionTrouble, failed: messages.filter((message) => message.delivery === 'failed').length };
}

export function statusAnnouncements(before: StatusSnapshot, after: StatusSnapshot, strings: Strings): Announcement {
  const polite: string[] = [];
  const assertive: string[] = [];
  if (after.phase !== before.phase) {
    if (after.phase === 'ended') assertive.push(strings.ended);
    if (after.phase === 'resolved') assertive.push(strings.resolved);
    if (after.phase === 'escalated') polite.push(strings.escalated);
  }
  const finished = after.phase === 'ended' || after.phase === 'resolved';
  if (after.failed > before.failed) assertive.push(`${strings.failed} ${strings.retry}`);
  // Fewer failed messages in a chat that goes on: the patient asked for one to be sent again.
  else if (after.failed < before.failed && !finished && after.phase === before.phase) polite.push(strings.sending);
  if (after.connectionTrouble && !before.connectionTrouble) polite.push(strings.retrying);
  if (!after.connectionTrouble && before.connectionTrouble && !finished) polite.push(strings.reconnected);
  return { polite: polite.join(' '), assertive: assertive.join(' ') };
}
