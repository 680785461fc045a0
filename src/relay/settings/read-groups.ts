// Reads every group's variables from the environment at once, so that a start refused for one bad value lists every
// other bad value with it, each under its variable's name (never its text: a password may be among them).
import type { ZodType } from 'zod';
import { type SettingProblem, SettingsError } from './settings-error.ts';
import type { SettingFacts } from './values.ts';

interface ReadableGroup<Output> {
  fields: Record<string, { facts: SettingFacts }>;
  schema: ZodType<Output>;
}

type Outputs<Groups extends Record<string, ReadableGroup<unknown>>> = {
  [Name in keyof Groups]: Groups[Name] extends ReadableGroup<infer Output> ? Output : never;
};

function codeOf(facts: SettingFacts, issueCode: string): SettingProblem['code'] {
  if (facts.range === null) return 'invalid';
  return issueCode === 'too_small' || issueCode === 'too_big' ? 'out_of_range' : 'not_a_whole_number';
}

export function readGroups<Groups extends Record<string, ReadableGroup<unknown>>>(
  groups: Groups,
  environment: Record<string, string | undefined>,
): Outputs<Groups> {
  // An empty variable means "not set", as in most shells' `VAR= npm start`.
  const textOf = (variable: string) => (environment[variable] === '' ? undefined : environment[variable]);
  const problems: SettingProblem[] = [];
  const lines: string[] = [];
  /** Rules across a group's settings (two that disagree): each is a sentence of its own. */
  const rules: string[] = [];
  const outputs: Record<string, unknown> = {};
  for (const [name, group] of Object.entries(groups)) {
    const texts = Object.fromEntries(
      Object.entries(group.fields).map(([field, setting]) => [field, textOf(setting.facts.variable)]),
    );
    const result = group.schema.safeParse(texts);
    if (result.success) {
      outputs[name] = result.data;
      continue;
    }
    for (const issue of result.error.issues) {
      const field = issue.path[0];
      const facts = typeof field === 'string' ? group.fields[field]?.facts : undefined;
      if (facts === undefined) {
        rules.push(issue.message);
        continue;
      }
      problems.push({ variable: facts.variable, code: codeOf(facts, issue.code) });
      lines.push(`${facts.variable}: ${issue.message}`);
    }
  }
  if (lines.length > 0 || rules.length > 0)
    throw new SettingsError(
      [...(lines.length > 0 ? [`Invalid settings:\n  ${lines.join('\n  ')}`] : []), ...rules].join('\n'),
      problems,
    );
  return outputs as Outputs<Groups>;
}
