// Why the relay refuses to start: one sentence per problem, naming the variable, and a code per refused value so that
// a caller (a test, a deployment check) tells an out-of-range number from a misspelt one without reading the words.

/**
 * What is wrong with one variable's value: `out_of_range` for a number outside its range, `not_a_whole_number` for a
 * number's variable that holds something else, `invalid` for any other value.
 */
export interface SettingProblem {
  variable: string;
  code: 'out_of_range' | 'not_a_whole_number' | 'invalid';
}

export class SettingsError extends Error {
  constructor(
    message: string,
    /** The values refused one by one; empty when the refusal is a rule across settings (two that disagree). */
    readonly problems: readonly SettingProblem[] = [],
  ) {
    super(message);
    this.name = 'SettingsError';
  }
}
