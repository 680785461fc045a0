import { useRef } from 'preact/hooks';
import type { Strings } from '../i18n.ts';
import type { ChatModel } from '../model/chat-model.ts';
import { statusAnnouncements, statusOf, type StatusSnapshot } from '../model/status-announcements.ts';

interface StatusAnnouncerProps {
  model: ChatModel;
  strings: Strings;
}

/**
 * Two live regions, always in the DOM (a region that appears together with its text is not announced reliably):
 * polite for what can wait, assertive for a message that was not sent and a chat that ended. Each announcement is a
 * new node, so the same words twice (two failed sends) are said twice, and a re-render that changes nothing says
 * nothing. The visible notices stay plain text, so the reading order does not repeat them as announcements.
 */
export function StatusAnnouncer({ model, strings }: StatusAnnouncerProps) {
  const now = statusOf(model.phase.value, model.connectionTrouble.value, model.messages.value);
  const last = useRef<StatusSnapshot>(now);
  const said = useRef({ polite: '', assertive: '', count: 0 });
  // Compared while rendering, against the state the last render showed, so no change is lost between renders and
  // the words land in the same commit as the change they describe.
  const change = statusAnnouncements(last.current, now, strings);
  last.current = now;
  if (change.polite || change.assertive) said.current = { ...change, count: said.current.count + 1 };
  const { polite, assertive, count } = said.current;
  return (
    <>
      <div class="visually-hidden" aria-live="polite" aria-atomic="true" data-announcer>
        {polite && <span key={count}>{polite}</span>}
      </div>
      <div class="visually-hidden" aria-live="assertive" aria-atomic="true" data-announcer>
        {assertive && <span key={count}>{assertive}</span>}
      </div>
    </>
  );
}
