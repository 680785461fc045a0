// Every word the panel shows, as the functions its components call, built from the one catalog the relay put in the
// frame page (src/shared/locales/catalog.ts): the panel ships no language of its own, so each visitor downloads only
// theirs. Plurals go through Intl.PluralRules, numbers and times through Intl, with the locale's Intl tag.
import { fill, type Catalog, type ErrorKey } from '../shared/locales/catalog.ts';
import { localeInfo, type LocaleTag } from '../shared/locales/locale-list.ts';
import type { SensitiveKind } from './text/sensitive.ts';

export type Locale = LocaleTag;
export type { ErrorKey };

export interface Strings {
  panelLabel(botName: string): string;
  close: string;
  emergencyNotice(emergencyNumber?: string): string;
  /** The notice's instruction alone, a whole sentence: what a short panel shows of the notice until it is opened. */
  emergencyInstruction(emergencyNumber?: string): string;
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
  reconnected: string;
  /** `botName`, or after the hand-off the team member's name. */
  typing(botName: string): string;
  agentTyping: string;
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
  /** A reply for the live region, its author and text joined as the language does. */
  newMessageAnnouncement(author: string, text: string): string;
  unavailable: string;
  preview: string;
  /** Shown when the browser gives the frame no storage: the conversation ends with this page. */
  noResume: string;
  languageLabel: string;
  languageFailed: string;
}

// First Strong Isolate … Pop Directional Isolate: a name or number filled into a right-to-left sentence keeps its own
// direction ("Dr. Lee" inside Arabic) without reordering the words around it, in text and accessible names alike,
// where no <bdi> can go. Left-to-right sentences keep their values as they are.
const isolate = (value: string) => `\u2068${value}\u2069`;

export function createStrings(catalog: Catalog, locale: Locale): Strings {
  const { intl, dir } = localeInfo(locale);
  // Made on the count's first use, which comes only near the message's limit: a fresh frame's first Intl objects load
  // the language's data, and a patient's first open, which builds these strings, waited for them.
  let plural: Intl.PluralRules | undefined;
  let number: Intl.NumberFormat | undefined;
  const put = dir === 'rtl' ? isolate : (value: string) => value;
  const with1 = (template: string, name: string) => (value: string) => fill(template, { [name]: put(value) });
  const withNumber =
    (template: string) =>
    (emergencyNumber = '911') =>
      fill(template, { number: put(emergencyNumber) });
  return {
    ...catalog,
    panelLabel: with1(catalog.panelLabel, 'bot'),
    emergencyNotice: withNumber(catalog.emergencyNotice),
    emergencyInstruction: withNumber(catalog.emergencyInstruction),
    automatedNotice: with1(catalog.automatedNotice, 'bot'),
    charactersLeft: (count) => {
      plural ??= new Intl.PluralRules(intl);
      number ??= new Intl.NumberFormat(intl);
      return fill(catalog.charactersLeft[plural.select(count)] ?? catalog.charactersLeft.other, {
        count: put(number.format(count)),
      });
    },
    typing: with1(catalog.typing, 'bot'),
    agentLabel: with1(catalog.agentLabel, 'name'),
    botLabel: with1(catalog.botLabel, 'name'),
    greeting: with1(catalog.greeting, 'bot'),
    sensitiveBody: (kinds) => {
      const card = kinds.includes('card');
      const ssn = kinds.includes('ssn');
      // The warning shows only when something was found: both kinds, or the one found.
      return card && ssn ? catalog.sensitiveBoth : card ? catalog.sensitiveCard : catalog.sensitiveSsn;
    },
    newMessageAnnouncement: (author, text) => fill(catalog.newMessageAnnouncement, { author: put(author), text }),
  };
}

const timeFormats = new Map<Locale, Intl.DateTimeFormat>();

/** The time of a message ("10:30 AM", "10:30", "10:30 ص", "۱۰:۳۰"), or '' when `iso` is not a date. */
export function formatTime(iso: string, locale: Locale): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  let format = timeFormats.get(locale);
  if (format === undefined) {
    format = new Intl.DateTimeFormat(localeInfo(locale).intl, { hour: 'numeric', minute: '2-digit' });
    timeFormats.set(locale, format);
  }
  return format.format(date);
}
