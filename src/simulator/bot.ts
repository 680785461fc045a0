import { addMessage, type ConversationStore } from './store.ts';

/** The simulated team member's first words, signed with the practice's team member name. */
export const agentGreeting = (teamMemberName: string): string => `Hi, this is ${teamMemberName} from the front desk. How can I help?`;
export const AGENT_REPLY = 'Thanks, let me check that for you. One moment, please.';
export const BOT_FALLBACK =
  'I am not sure I understood. I can help with opening hours, appointments and insurance, or choose “Talk to a person” to reach our team.';

const REPLIES: ReadonlyArray<[RegExp, string]> = [
  [
    /appointment|\bbook|schedul|cancel|reschedul/i,
    'I can help with appointments. You can book online, or call us at (555) 010-0199 and we will find a time that suits you.',
  ],
  [
    /insurance|billing|\bbill|invoice|payment|\bpay\b|cost|price/i,
    'We accept most major insurance plans. For billing questions our office can look up your account; choose “Talk to a person”.',
  ],
  [
    /hours|\bopen|\bclose|closing|weekend|saturday|sunday/i,
    'We are open Monday to Friday from 8 am to 6 pm, and Saturday from 9 am to 1 pm.',
  ],
];

/** The bot's canned answer: keyword replies, else a fallback that points at a person. */
export function botReply(text: string): string {
  for (const [pattern, reply] of REPLIES) if (pattern.test(text)) return reply;
  return BOT_FALLBACK;
}

export interface Responder {
  afterVisitorMessage(conversationId: string, text: string): void;
  afterEscalation(conversationId: string): void;
  /** A person wrote on the staff page: the simulated team member stays quiet in this conversation from now on. */
  staffJoined(conversationId: string): void;
  cancel(conversationId: string): void;
  close(): void;
}

/**
 * Schedules the bot's and the team member's replies. Timers are tracked per conversation so that resolving a
 * conversation or closing the simulator leaves nothing running. Message text is never logged.
 */
export function createResponder(options: {
  store: ConversationStore;
  now: () => number;
  botReplyDelayMs: number;
  agentJoinDelayMs: number;
}): Responder {
  const timers = new Map<string, Set<ReturnType<typeof setTimeout>>>();
  const staffed = new Set<string>();
  let closed = false;

  const schedule = (conversationId: string, delayMs: number, run: () => void): void => {
    if (closed) return;
    const set = timers.get(conversationId) ?? new Set();
    timers.set(conversationId, set);
    const timer = setTimeout(() => {
      set.delete(timer);
      run();
    }, delayMs);
    set.add(timer);
  };

  const cancel = (conversationId: string): void => {
    for (const timer of timers.get(conversationId) ?? []) clearTimeout(timer);
    timers.delete(conversationId);
  };

  const reply = (conversationId: string, sender: 'bot' | 'agent', text: string, onlyInMode: 'bot' | 'agent'): void => {
    const conversation = options.store.conversations.get(conversationId);
    // The conversation may have changed while the reply was pending: no bot answer after a hand-over, none at all
    // after it was resolved.
    if (!conversation || conversation.status === 'resolved' || conversation.mode !== onlyInMode) return;
    if (sender === 'agent' && staffed.has(conversationId)) return;
    const authors = options.store.authors.get(conversationId);
    if (!authors) return;
    const authorName = sender === 'bot' ? authors.bot : authors.teamMember;
    addMessage(options.store, conversation, { sender, authorName, text, at: new Date(options.now()).toISOString() });
  };

  return {
    afterVisitorMessage(conversationId, text) {
      const mode = options.store.conversations.get(conversationId)?.mode;
      if (mode === 'bot') {
        const answer = botReply(text);
        schedule(conversationId, options.botReplyDelayMs, () => reply(conversationId, 'bot', answer, 'bot'));
      } else if (mode === 'agent') {
        schedule(conversationId, options.agentJoinDelayMs, () => reply(conversationId, 'agent', AGENT_REPLY, 'agent'));
      }
    },
    afterEscalation(conversationId) {
      const authors = options.store.authors.get(conversationId);
      if (!authors) return;
      schedule(conversationId, options.agentJoinDelayMs, () => reply(conversationId, 'agent', agentGreeting(authors.teamMember), 'agent'));
    },
    staffJoined(conversationId) {
      staffed.add(conversationId);
      cancel(conversationId);
    },
    cancel,
    close() {
      closed = true;
      staffed.clear();
      for (const set of timers.values()) for (const timer of set) clearTimeout(timer);
      timers.clear();
    },
  };
}
