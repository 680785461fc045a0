// One language's words for the launcher and the panel, as plain data: the relay inlines the visitor's catalog into
// the frame page as JSON and formats the launcher's label with it, so no browser downloads a language it does not
// show. Placeholders are `{name}`; plural texts are keyed by Intl.PluralRules categories. Hand-parsed (no zod): the
// frame parses what the page carries with parseCatalog.
import { API_ERROR_CODES, type ApiErrorCode } from '../wire.ts';

export type ErrorKey = ApiErrorCode | 'network' | 'bad_response';

/** Words for each plural category the language's Intl.PluralRules uses; `other` always. */
export type Plural = { other: string } & Partial<Record<Intl.LDMLPluralRule, string>>;

/** Every key whose value is one text. The order is the catalogs' order, for whoever reads them side by side. */
export const TEXT_KEYS = [
  'panelLabel', // {bot}: the panel's title, the launcher's accessible name and the frame's title
  'close',
  'emergencyNotice', // {number}: follows docs/glossary.md exactly
  'emergencyInstruction', // {number}: the notice's instruction alone, all a short panel shows of it until it is opened
  'automatedNotice', // {bot}
  'composerLabel',
  'conversationLabel',
  'composerPlaceholder',
  'send',
  'sending',
  'failed',
  'retry',
  'retrying',
  'reconnected',
  'typing', // {bot}, or after the hand-off the team member's name
  'agentTyping', // after the hand-off, before the team member's name is known
  'talkToPerson',
  'escalated',
  'agentLabel', // {name}
  'visitorLabel',
  'botLabel', // {name}
  'endChat',
  'ended',
  'resolved',
  'newChat',
  'greeting', // {bot}
  'suggestionsLabel',
  'showEarlier',
  'sensitiveTitle',
  'sensitiveCard',
  'sensitiveSsn',
  'sensitiveBoth',
  'sendAnyway',
  'edit',
  'newMessageAnnouncement', // {author} {text}: the language's own punctuation between them
  'unavailable',
  'preview',
  'noResume',
  'languageLabel',
  'languageFailed',
] as const;

export type TextKey = (typeof TEXT_KEYS)[number];

export const ERROR_KEYS: readonly ErrorKey[] = [...API_ERROR_CODES, 'network', 'bad_response'];

export type Catalog = Record<TextKey, string> & {
  /** {count}: characters the visitor may still type. */
  charactersLeft: Plural;
  /** Suggested first messages: a button sends exactly these words. */
  suggestions: readonly string[];
  errors: Record<ErrorKey, string>;
};

const isText = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';
const record = (value: unknown): Record<string, unknown> | null =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
const PLURAL_CATEGORIES = ['zero', 'one', 'two', 'few', 'many', 'other'] as const;

/** The catalog, or null when anything the panel needs is missing or not text. Unknown keys are dropped. */
export function parseCatalog(value: unknown): Catalog | null {
  const input = record(value);
  const plural = record(input?.charactersLeft);
  const errors = record(input?.errors);
  const suggestions = input?.suggestions;
  if (
    !input ||
    !plural ||
    !errors ||
    !isText(plural.other) ||
    !Array.isArray(suggestions) ||
    !suggestions.every(isText)
  )
    return null;
  const catalog: Record<string, unknown> = { suggestions: [...suggestions], errors: {}, charactersLeft: {} };
  for (const key of TEXT_KEYS) {
    if (!isText(input[key])) return null;
    catalog[key] = input[key];
  }
  for (const key of ERROR_KEYS) {
    if (!isText(errors[key])) return null;
    (catalog.errors as Record<string, string>)[key] = errors[key];
  }
  for (const category of PLURAL_CATEGORIES)
    if (isText(plural[category])) (catalog.charactersLeft as Record<string, string>)[category] = plural[category];
  return catalog as Catalog;
}

/** `{name}` placeholders filled in; an unknown one stays as written, so a mistake shows rather than vanishes. */
export function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (Object.hasOwn(values, name) ? values[name]! : whole));
}
