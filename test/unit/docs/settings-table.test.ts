// docs/settings.md is where an operator learns what the relay reads from its environment: a setting the relay
// parses but the table leaves out is one nobody can find, and a row for a setting the relay no longer reads misleads.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { SETTING_NAMES } from '../../../src/relay/settings.ts';

/** The tests' own variables, which the table lists beside the relay's for whoever runs the tests. */
const TEST_ONLY = ['CHROME_PATH', 'REDIS_SERVER_PATH', 'REDIS_SENTINEL_PATH'];

function documentedSettings(): string[] {
  const page = readFileSync(new URL('../../../docs/settings.md', import.meta.url), 'utf8');
  return [...page.matchAll(/^\| ((?:`[A-Z0-9_]+`(?:, )?)+) \|/gm)].flatMap(([, names]) =>
    [...names!.matchAll(/`([A-Z0-9_]+)`/g)].map(([, name]) => name!),
  );
}

it('lists every setting the relay reads, and only those', () => {
  const documented = documentedSettings().filter((name) => !TEST_ONLY.includes(name));
  expect([...documented].sort()).toEqual([...SETTING_NAMES].sort());
});
