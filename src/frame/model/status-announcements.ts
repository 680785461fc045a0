// Which changes of the conversation's state a patient who cannot see the panel must be told of, and in which words:
// a pure comparison of two snapshots, so the rules are tested without a DOM. Replies are announced elsewhere (App),
// and typing is not announced at all: it comes and goes with every reply, and saying it would talk over the reply.
import type { Strings } from '../i18n.ts';
import type { ChatPhase } from './chat-model.ts';

/** The phase, whether the connection is in trouble, and how many of the visitor's messages show as not sent. */
export type StatusSnapshot = [phase: ChatPhase, connectionTrouble: boolean, failed: number];

/**
 * What to say politely (when the screen reader is free) and assertively (at once: the patient may believe a message
 * was sent, or keep typing into a chat that is over); '' for nothing.
 */
export function statusAnnouncements(
  [phase, trouble, failed]: StatusSnapshot,
  [nextPhase, nextTrouble, nextFailed]: StatusSnapshot,
  strings: Strings,
): [polite: string, assertive: string] {
  const polite: string[] = [];
  const assertive: string[] = [];
  const finished = nextPhase === 'ended' || nextPhase === 'resolved';
  if (nextPhase !== phase && finished) assertive.push(strings[nextPhase]);
  if (nextPhase !== phase && nextPhase === 'escalated') polite.push(strings.escalated);
  if (nextFailed > failed) assertive.push(`${strings.failed} ${strings.retry}`);
  // Fewer failed messages in a chat that goes on: the patient asked for one to be sent again.
  else if (nextFailed < failed && !finished && nextPhase === phase) polite.push(strings.sending);
  if (nextTrouble !== trouble && !(finished && trouble))
    polite.push(nextTrouble ? strings.retrying : strings.reconnected);
  return [polite.join(' '), assertive.join(' ')];
}
