// Every word the panel shows, in English and Spanish. Kept as plain functions rather than a message-format library:
// the frame has a small size budget and two locales.
import type { ApiErrorCode } from '../shared/wire.ts';
import type { SensitiveKind } from './text/sensitive.ts';

export type Locale = 'en' | 'es';

export type ErrorKey = ApiErrorCode | 'network' | 'bad_response';

export interface Strings {
  panelLabel(botName: string): string;
  close: string;
  emergencyNotice(emergencyNumber?: string): string;
  automatedNotice(botName: string): string;
  composerLabel: string;
  conversationLabel: string;
  composerPlaceholder: string;
  send: string;
  charactersLeft(count: number): string;
  sending: string;
  failed: string;
  retry: string;
  retrying: string;
  typing(botName: string): string;
  talkToPerson: string;
  escalated: string;
  agentLabel(name: string): string;
  visitorLabel: string;
  botLabel(name: string): string;
  endChat: string;
  ended: string;
  resolved: string;
  newChat: string;
  /** The panel's own welcome on a new conversation: shown, never sent or stored. */
  greeting(botName: string): string;
  suggestionsLabel: string;
  /** Suggested first messages: a button sends exactly these words. */
  suggestions: readonly string[];
  showEarlier: string;
  sensitiveTitle: string;
  sensitiveBody(kinds: readonly SensitiveKind[]): string;
  sendAnyway: string;
  edit: string;
  errors: Record<ErrorKey, string>;
  newMessageAnnouncement(author: string): string;
  unavailable: string;
  loading: string;
  preview: string;
  /** Shown when the browser gives the frame no storage: the conversation ends with this page. */
  noResume: string;
}

// Only the language subtag counts: "es", "es-MX", "es_419"; a tag such as "est" is not Spanish.
const SPANISH = /^es(?:[-_]|$)/i;
const ENGLISH = /^en(?:[-_]|$)/i;

function supported(tag: string | null | undefined): Locale | null {
  const value = tag?.trim() ?? '';
  if (SPANISH.test(value)) return 'es';
  if (ENGLISH.test(value)) return 'en';
  return null;
}

/**
 * The locale asked for by data-locale or the URL first, when it is one we have; else the first of the browser's
 * languages that we have; else English.
 */
export function chooseLocale(requested: string | null, browserLanguages: readonly string[]): Locale {
  const asked = supported(requested);
  if (asked !== null) return asked;
  for (const language of browserLanguages) {
    const found = supported(language);
    if (found !== null) return found;
  }
  return 'en';
}

const en: Strings = {
  panelLabel: (bot) => `Chat with ${bot}`,
  close: 'Close chat',
  emergencyNotice: (number = '911') => `Not for emergencies. If this is an emergency, call ${number}.`,
  automatedNotice: (bot) => `${bot} is an automated assistant until a team member joins.`,
  composerLabel: 'Message',
  conversationLabel: 'Conversation',
  composerPlaceholder: 'Type your message…',
  send: 'Send',
  charactersLeft: (count) => (count === 1 ? '1 character left' : `${count} characters left`),
  sending: 'Sending…',
  failed: 'Not sent.',
  retry: 'Try again',
  retrying: 'Connection problem — retrying…',
  typing: (bot) => `${bot} is typing…`,
  talkToPerson: 'Talk to a person',
  escalated: 'A team member has been asked to join. They will reply here.',
  agentLabel: (name) => `${name} (team member)`,
  visitorLabel: 'You',
  botLabel: (name) => `${name} (automated)`,
  endChat: 'End chat',
  ended: 'This chat has ended.',
  resolved: 'The practice has closed this conversation.',
  newChat: 'Start a new chat',
  greeting: (bot) => `Hi, I'm ${bot}. How can I help?`,
  suggestionsLabel: 'Suggested questions',
  suggestions: ['What are your opening hours?', "I'd like to book an appointment.", 'I have a question about insurance or billing.'],
  showEarlier: 'Show earlier messages',
  sensitiveTitle: 'Check before sending',
  sensitiveBody: (kinds) => {
    const card = kinds.includes('card');
    const ssn = kinds.includes('ssn');
    const what =
      card && ssn
        ? 'a card number and a Social Security number'
        : card
          ? 'a card number'
          : ssn
            ? 'a Social Security number'
            : 'sensitive information';
    return `This looks like it contains ${what}. Please don't share card or Social Security numbers in chat.`;
  },
  sendAnyway: 'Send anyway',
  edit: 'Edit message',
  errors: {
    bad_request: 'Something went wrong with that request. Please try again.',
    unsupported_media_type: 'Something went wrong with that request. Please try again.',
    payload_too_large: 'That message is too long. Please shorten it and try again.',
    not_found: 'This chat could not be found. Please start a new chat.',
    forbidden_origin: 'Chat is not available on this website.',
    inactive: 'Chat is turned off for this practice right now.',
    idempotency_conflict: 'That message could not be sent. Please try again.',
    rate_limited: 'Too many messages in a short time. Please wait a moment and try again.',
    session_expired: 'This chat has expired. Please start a new chat.',
    conversation_resolved: 'This conversation has been closed. Please start a new chat.',
    upstream_unavailable: "The practice's chat service isn't responding. Please try again shortly.",
    upstream_timeout: "The practice's chat service took too long to answer. Please try again.",
    internal: 'Something went wrong on our side. Please try again.',
    network: "Can't reach the chat service. Check your connection and try again.",
    bad_response: 'The chat service sent an unexpected answer. Please try again.',
  },
  newMessageAnnouncement: (author) => `New message from ${author}`,
  unavailable: 'Chat is unavailable right now.',
  loading: 'Loading…',
  preview: 'Preview — messages are not sent to the practice',
  noResume: 'Your browser blocks storage for this chat, so it will not continue on another page or after a reload.',
};

const es: Strings = {
  panelLabel: (bot) => `Chatear con ${bot}`,
  close: 'Cerrar el chat',
  emergencyNotice: (number = '911') => `No es para emergencias. Si se trata de una emergencia, llame al ${number}.`,
  automatedNotice: (bot) => `${bot} es un asistente automático hasta que se una un miembro del equipo.`,
  composerLabel: 'Mensaje',
  conversationLabel: 'Conversación',
  composerPlaceholder: 'Escriba su mensaje…',
  send: 'Enviar',
  charactersLeft: (count) => (count === 1 ? 'Queda 1 carácter' : `Quedan ${count} caracteres`),
  sending: 'Enviando…',
  failed: 'No se envió.',
  retry: 'Intentar de nuevo',
  retrying: 'Problema de conexión: reintentando…',
  typing: (bot) => `${bot} está escribiendo…`,
  talkToPerson: 'Hablar con una persona',
  escalated: 'Se le pidió a un miembro del equipo que se una. Le responderá aquí.',
  agentLabel: (name) => `${name} (miembro del equipo)`,
  visitorLabel: 'Usted',
  botLabel: (name) => `${name} (automático)`,
  endChat: 'Terminar el chat',
  ended: 'Este chat ha terminado.',
  resolved: 'El consultorio cerró esta conversación.',
  newChat: 'Iniciar un chat nuevo',
  greeting: (bot) => `Hola, soy ${bot}. ¿En qué puedo ayudarle?`,
  suggestionsLabel: 'Preguntas sugeridas',
  suggestions: ['¿Cuál es su horario de atención?', 'Quisiera pedir una cita.', 'Tengo una pregunta sobre seguros o facturación.'],
  showEarlier: 'Mostrar mensajes anteriores',
  sensitiveTitle: 'Revise antes de enviar',
  sensitiveBody: (kinds) => {
    const card = kinds.includes('card');
    const ssn = kinds.includes('ssn');
    const what =
      card && ssn
        ? 'un número de tarjeta y un número de Seguro Social'
        : card
          ? 'un número de tarjeta'
          : ssn
            ? 'un número de Seguro Social'
            : 'información delicada';
    return `Parece que contiene ${what}. Por favor, no comparta números de tarjeta ni de Seguro Social en el chat.`;
  },
  sendAnyway: 'Enviar de todos modos',
  edit: 'Editar el mensaje',
  errors: {
    bad_request: 'Hubo un problema con la solicitud. Inténtelo de nuevo.',
    unsupported_media_type: 'Hubo un problema con la solicitud. Inténtelo de nuevo.',
    payload_too_large: 'El mensaje es demasiado largo. Acórtelo e inténtelo de nuevo.',
    not_found: 'No se encontró este chat. Inicie un chat nuevo.',
    forbidden_origin: 'El chat no está disponible en este sitio web.',
    inactive: 'El chat de este consultorio está desactivado en este momento.',
    idempotency_conflict: 'No se pudo enviar el mensaje. Inténtelo de nuevo.',
    rate_limited: 'Demasiados mensajes en poco tiempo. Espere un momento e inténtelo de nuevo.',
    session_expired: 'Este chat ha caducado. Inicie un chat nuevo.',
    conversation_resolved: 'Esta conversación se cerró. Inicie un chat nuevo.',
    upstream_unavailable: 'El servicio de chat del consultorio no responde. Inténtelo de nuevo en unos minutos.',
    upstream_timeout: 'El servicio de chat del consultorio tardó demasiado en responder. Inténtelo de nuevo.',
    internal: 'Algo salió mal de nuestra parte. Inténtelo de nuevo.',
    network: 'No se puede conectar con el servicio de chat. Revise su conexión e inténtelo de nuevo.',
    bad_response: 'El servicio de chat envió una respuesta inesperada. Inténtelo de nuevo.',
  },
  newMessageAnnouncement: (author) => `Nuevo mensaje de ${author}`,
  unavailable: 'El chat no está disponible en este momento.',
  loading: 'Cargando…',
  preview: 'Vista previa: los mensajes no se envían al consultorio',
  noResume: 'Su navegador bloquea el almacenamiento de este chat, así que no continuará en otra página ni al recargar.',
};

export const STRINGS: Record<Locale, Strings> = { en, es };

const timeFormats = new Map<Locale, Intl.DateTimeFormat>();

/** The time of a message ("10:30 AM", "10:30"), or '' when `iso` is not a date. */
export function formatTime(iso: string, locale: Locale): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  let format = timeFormats.get(locale);
  if (format === undefined) {
    format = new Intl.DateTimeFormat(locale, { hour: 'numeric', minute: '2-digit' });
    timeFormats.set(locale, format);
  }
  return format.format(date);
}
