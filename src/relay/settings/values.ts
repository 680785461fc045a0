// How one environment variable's text becomes a value. Each setting is declared once, as a field of its group:
// the variable it is read from, how its text is parsed (a number always within a range), and its default. The
// settings' types are inferred from these schemas, and docs/settings.md is checked against the same facts.
import { z } from 'zod';

/** What an operator reads about a setting in docs/settings.md: its variable, default and range (in its own unit). */
export interface SettingFacts {
  variable: string;
  /** The value used when the variable is unset, as it would be written; null when unset means none, or depends. */
  fallback: string | null;
  range: { min: number; max: number } | null;
}

export interface Setting<Value> {
  facts: SettingFacts;
  /** Parses the variable's text (undefined when unset) into the setting's value. */
  schema: z.ZodType<Value, string | undefined>;
}

function wholeNumber(min: number, max: number) {
  const outOfRange = `must be from ${min} to ${max}`;
  return z
    .string()
    .trim()
    .regex(/^\d+$/, `must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .pipe(z.number().int().min(min, outOfRange).max(max, outOfRange));
}

/**
 * A whole number from `min` to `max` (in the variable's unit), `fallback` when unset. `unit` scales it to the unit the
 * relay works in (1000 for seconds read as milliseconds).
 */
export function whole(
  variable: string,
  fallback: number,
  range: { min: number; max: number },
  unit = 1,
): Setting<number> {
  return {
    facts: { variable, fallback: String(fallback), range },
    schema: wholeNumber(range.min, range.max)
      .optional()
      .transform((value) => (value ?? fallback) * unit),
  };
}

/** A whole number from `min` to `max`, or null when unset (a listener that is not started, say). */
export function optionalWhole(variable: string, range: { min: number; max: number }): Setting<number | null> {
  return {
    facts: { variable, fallback: null, range },
    schema: wholeNumber(range.min, range.max)
      .optional()
      .transform((value) => value ?? null),
  };
}

/** Text checked by `schema`, `fallback` when unset. */
export function text(variable: string, schema: z.ZodType<string, string>, fallback: string): Setting<string> {
  return {
    facts: { variable, fallback, range: null },
    schema: schema.optional().transform((value) => value ?? fallback),
  };
}

/** Text checked (and perhaps parsed) by `schema`, undefined when unset. */
export function optionalText<Value>(variable: string, schema: z.ZodType<Value, string>): Setting<Value | undefined> {
  return { facts: { variable, fallback: null, range: null }, schema: schema.optional() };
}

/** A value parsed from the variable's text, or from no text at all: what unset means is the schema's to say. */
export function parsed<Value>(variable: string, schema: z.ZodType<Value, string | undefined>): Setting<Value> {
  return { facts: { variable, fallback: null, range: null }, schema };
}

const FLAG_WORDS = ['true', 'false', '1', '0'] as const;
const isOn = (word: string) => word === 'true' || word === '1';

/** `true` or `false` (`1`, `0`), `fallback` when unset. */
export function flag(variable: string, fallback: boolean): Setting<boolean> {
  return {
    facts: { variable, fallback: String(fallback), range: null },
    schema: z
      .enum(FLAG_WORDS, 'must be true or false')
      .optional()
      .transform((value) => (value === undefined ? fallback : isOn(value))),
  };
}

/** A flag whose default depends on another setting (the mode, another flag): undefined when unset. */
export function optionalFlag(variable: string): Setting<boolean | undefined> {
  return {
    facts: { variable, fallback: null, range: null },
    schema: z
      .enum(FLAG_WORDS, 'must be true or false')
      .optional()
      .transform((value) => (value === undefined ? undefined : isOn(value))),
  };
}

// biome-ignore lint/suspicious/noExplicitAny: a group holds settings of every value type
type Fields = Record<string, Setting<any>>;

/** The values a group's fields parse to, by field name. */
export type Values<Shape extends Fields> = {
  [Name in keyof Shape]: Shape[Name] extends Setting<infer Value> ? Value : never;
};

/** Refuses the group's values as a whole (two settings that disagree), with a sentence that names them. */
export type Refuse = (sentence: string) => never;

/** How `refuse` leaves `assemble`: the group's schema turns it into an issue of its own. */
class Refusal extends Error {}

/** One group's settings, by the name the relay gives each; its schema's output is the group's typed settings. */
export interface SettingsGroup<Shape extends Fields, Output> {
  /** What the group is for: docs/settings.md has a section of this title. */
  title: string;
  fields: Shape;
  /** Parses the variables' texts, by field name, into the group's settings. */
  schema: z.ZodType<Output, Partial<Record<keyof Shape, string>>>;
}

/**
 * A group of settings. `assemble` turns the fields' values into what the relay uses when they are not used one by one
 * (an address and its credentials as one value), and refuses values that disagree.
 */
export function group<Shape extends Fields, Output = Values<Shape>>(
  title: string,
  fields: Shape,
  assemble: (values: Values<Shape>, refuse: Refuse) => Output = (values) => values as Output,
): SettingsGroup<Shape, Output> {
  const shape = Object.fromEntries(Object.entries(fields).map(([name, setting]) => [name, setting.schema]));
  const schema = z.object(shape).transform((values, context) => {
    try {
      return assemble(values as Values<Shape>, (sentence) => {
        throw new Refusal(sentence);
      });
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      context.addIssue({ code: 'custom', message: error.message });
      return z.NEVER;
    }
  });
  return { title, fields, schema: schema as unknown as SettingsGroup<Shape, Output>['schema'] };
}
