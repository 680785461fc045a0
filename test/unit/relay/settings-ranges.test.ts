// Every numeric setting has a range, and a start with a value outside it stops with a line that names the variable and
// the range, and a code a deployment check can read (out_of_range), rather than running with a surprise.
import { describe, expect, it } from 'vitest';
import { readSettings, SETTINGS_FACTS, SettingsError } from '../../../src/relay/settings.ts';

const secret = () => new Uint8Array(32).fill(1);
const ranged = SETTINGS_FACTS.flatMap((group) => group.settings).flatMap((setting) =>
  setting.range === null ? [] : [{ variable: setting.variable, ...setting.range }],
);

/** The problems a start with `variable` set to `value` reports about that variable (none when it starts). */
function problemsWith(variable: string, value: string) {
  try {
    readSettings({ NODE_ENV: 'development', [variable]: value }, secret);
    return [];
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    return error.problems.filter((problem) => problem.variable === variable);
  }
}

describe('numeric settings', () => {
  it('are many, and each has its range', () => {
    expect(ranged.length).toBeGreaterThanOrEqual(25);
  });

  it.each(ranged)('$variable takes $min and $max', ({ variable, min, max }) => {
    expect(problemsWith(variable, String(min))).toEqual([]);
    expect(problemsWith(variable, String(max))).toEqual([]);
  });

  it.each(ranged)('$variable refuses a value past either end: out_of_range, naming it', ({ variable, min, max }) => {
    const outside = [String(max + 1), ...(min > 0 ? [String(min - 1)] : [])];
    for (const value of outside) {
      expect(problemsWith(variable, value)).toEqual([{ variable, code: 'out_of_range' }]);
      expect(() => readSettings({ NODE_ENV: 'development', [variable]: value }, secret)).toThrow(
        `${variable}: must be from ${min} to ${max}`,
      );
    }
  });

  it.each(ranged)('$variable refuses what is not a whole number: not_a_whole_number', ({ variable }) => {
    for (const value of ['-1', '1.5', '1e3', 'ten'])
      expect(problemsWith(variable, value)).toEqual([{ variable, code: 'not_a_whole_number' }]);
  });

  it('lists every refused value at once, each with its code', () => {
    try {
      readSettings({ NODE_ENV: 'development', MAX_STREAMS: '2000000', PORT: 'http', DEMO_PAGES: 'yes' }, secret);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(SettingsError);
      expect((error as SettingsError).problems).toEqual(
        expect.arrayContaining([
          { variable: 'MAX_STREAMS', code: 'out_of_range' },
          { variable: 'PORT', code: 'not_a_whole_number' },
          { variable: 'DEMO_PAGES', code: 'invalid' },
        ]),
      );
      expect((error as SettingsError).message).toMatch(/^Invalid settings:\n {2}/);
    }
  });
});
