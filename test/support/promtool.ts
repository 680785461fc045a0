// Prometheus' promtool, which checks metrics text and alert rules (Debian package `prometheus`; `npm test` installs
// it where it may, test/support/ensure-tools.mjs).
import { existsSync } from 'node:fs';

export const PROMTOOL = process.env.PROMTOOL_PATH || '/usr/bin/promtool';

export function requirePromtool(): string {
  if (!existsSync(PROMTOOL))
    throw new Error(
      `${PROMTOOL} not found: these tests check with Prometheus' promtool (Debian: apt-get install prometheus; or set PROMTOOL_PATH).`,
    );
  return PROMTOOL;
}
