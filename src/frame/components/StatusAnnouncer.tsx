import { useRef } from 'preact/hooks';
import type { Strings } from '../i18n.ts';
import type { ChatModel } from '../model/chat-model.ts';
import { statusAnnouncements, type StatusSnapshot } from '../model/status-announcements.ts';

interface StatusAnnouncerProps {
  model: ChatModel;
  strings: Strings;
}

/**
 * Live regions always in the DOM (a region that appears together with its text is not announced reliably): polite
 * for what can wait, assertive for a message that was not sent and a chat that ended. Each announcement is a new
 * node, so the same words twice (two failed sends) are said twice, and a re-render that changes nothing says nothing.
 * Polite words take turns between two regions: a screen reader that falls behind drops an older text change when a
 * newer one is queued for the same region (Orca does), so "Sending…" replaced at once by "Connection restored."
 * would never be said. The visible notices stay plain text, so the reading order does not repeat them as
 * announcements.
 */
export function StatusAnnouncer({ model, strings }: StatusAnnouncerProps) {
  const now: StatusSnapshot = [
    model.phase.value,
    model.connectionTrouble.value,
    model.messages.value.filter((message) => message.delivery === 'failed').length,
  ];
  const last = useRef(now);
  const said = useRef(['', '', 0] as [string, string, number]);
  // Compared while rendering, against the state the last render showed, so no change is lost between renders and
  // the words land in the same commit as the change they describe.
  const [polite, assertive] = statusAnnouncements(last.current, now, strings);
  last.current = now;
  if (polite || assertive) said.current = [polite, assertive, said.current[2] + 1];
  const [politeText, assertiveText, count] = said.current;
  const turn = count % 2;
  return (
    <>
      {[turn ? '' : politeText, turn ? politeText : '', assertiveText].map((text, index) => (
        <div class="visually-hidden" aria-live={index > 1 ? 'assertive' : 'polite'}>
          {text && <span key={count}>{text}</span>}
        </div>
      ))}
    </>
  );
}
