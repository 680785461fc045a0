// How one environment variable's text becomes a value: every settings group parses its variables with these, so a
// number out of range or a misspelt flag is refused the same way whatever the group.
import { z } from 'zod';

export const integer = (fallback: number, min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, `must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .pipe(z.number().int().min(min, `must be from ${min} to ${max}`).max(max, `must be from ${min} to ${max}`))
    .optional()
    .transform((value) => value ?? fallback);

export const flag = z
  .enum(['true', 'false', '1', '0', ''], 'must be true or false')
  .optional()
  .transform((value) => value === 'true' || value === '1');

/** A flag whose default depends on the mode: undefined when unset. */
export const optionalFlag = z
  .enum(['true', 'false', '1', '0'], 'must be true or false')
  .optional()
  .transform((value) => (value === undefined ? undefined : value === 'true' || value === '1'));
