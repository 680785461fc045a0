import { addMessage, type ConversationStore } from './store.ts';

// The canned words, per language the simulated practice speaks; a conversation in another language gets English,
// as a practice without that language's staff would answer.
interface Words {
  /** The simulated team member's first words, signed with the practice's team member name. */
  agentGreeting(teamMemberName: string): string;
  agentReply: string;
  botFallback: string;
  replies: ReadonlyArray<[RegExp, string]>;
}

const ENGLISH: Words = {
  agentGreeting: (name) => `Hi, this is ${name} from the front desk. How can I help?`,
  agentReply: 'Thanks, let me check that for you. One moment, please.',
  botFallback:
    'I am not sure I understood. I can help with opening hours, appointments and insurance, or choose “Talk to a person” to reach our team.',
  replies: [
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
  ],
};

// The panel's Spanish button is "Hablar con una persona" (src/shared/locales/es.ts): the bot names it as the patient sees it.
const SPANISH: Words = {
  agentGreeting: (name) => `Hola, soy ${name}, de recepción. ¿En qué puedo ayudarle?`,
  agentReply: 'Gracias, permítame revisarlo. Un momento, por favor.',
  botFallback:
    'No estoy seguro de haber entendido. Puedo ayudarle con el horario, las citas y los seguros, o elija “Hablar con una persona” para comunicarse con nuestro equipo.',
  replies: [
    [
      /\bcita|agendar|programar|reservar|cancelar/i,
      'Puedo ayudarle con las citas. Puede reservar en línea o llamarnos al (555) 010-0199 y buscaremos un horario que le convenga.',
    ],
    [
      /seguro|factura|\bpago|\bpagar|costo|precio/i,
      'Aceptamos la mayoría de los planes de seguro. Para preguntas de facturación, nuestra oficina puede revisar su cuenta; elija “Hablar con una persona”.',
    ],
    [
      /horario|abiert|abren|cierran|sábado|domingo|fin de semana/i,
      'Abrimos de lunes a viernes de 8 a. m. a 6 p. m., y los sábados de 9 a. m. a 1 p. m.',
    ],
  ],
};

/** The words for a conversation's language (`es`, `es-MX`, … are Spanish), English otherwise. */
export function wordsFor(language: string | undefined): Words {
  return /^es(?:-|$)/i.test(language ?? '') ? SPANISH : ENGLISH;
}

export const agentGreeting = ENGLISH.agentGreeting;
export const AGENT_REPLY = ENGLISH.agentReply;
export const BOT_FALLBACK = ENGLISH.botFallback;

/** The bot's canned answer in the conversation's language: keyword replies, else a fallback that points at a person. */
export function botReply(text: string, language?: string): string {
  const words = wordsFor(language);
  for (const [pattern, reply] of words.replies) if (pattern.test(text)) return reply;
  return words.botFallback;
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
      const conversation = options.store.conversations.get(conversationId);
      if (conversation?.mode === 'bot') {
        const answer = botReply(text, conversation.language);
        schedule(conversationId, options.botReplyDelayMs, () => reply(conversationId, 'bot', answer, 'bot'));
      } else if (conversation?.mode === 'agent') {
        const answer = wordsFor(conversation.language).agentReply;
        schedule(conversationId, options.agentJoinDelayMs, () => reply(conversationId, 'agent', answer, 'agent'));
      }
    },
    afterEscalation(conversationId) {
      const authors = options.store.authors.get(conversationId);
      if (!authors) return;
      // Read when the greeting is written: the patient may switch languages while the team member is on the way.
      schedule(conversationId, options.agentJoinDelayMs, () =>
        reply(
          conversationId,
          'agent',
          wordsFor(options.store.conversations.get(conversationId)?.language).agentGreeting(authors.teamMember),
          'agent',
        ),
      );
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
