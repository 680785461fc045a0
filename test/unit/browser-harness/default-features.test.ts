// The browser tests drop exactly one switch from Playwright's defaults (test/browser/harness.ts). ignoreDefaultArgs
// matches whole arguments, so the copy of the list there must be the installed playwright-core's list, or the tests
// would quietly run Chromium with Playwright's list and without storage partitioning again.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PLAYWRIGHT_DISABLED_FEATURES } from '../../browser/harness.ts';

function installedDisabledFeatures(): string[] {
  const packageDir = dirname(createRequire(import.meta.url).resolve('playwright-core/package.json'));
  const source = readFileSync(join(packageDir, 'lib/coreBundle.js'), 'utf8');
  const block = /disabledFeatures = \[([\s\S]*?)\]\.filter\(Boolean\)/.exec(source);
  if (!block) throw new Error('playwright-core no longer has a disabledFeatures list where the harness expects it');
  return [...block[1]!.matchAll(/^\s*"([A-Za-z]+)",?\s*$/gm)].map((match) => match[1]!);
}

describe('the test browser is Chromium as users have it', () => {
  it("the harness's copy of Playwright's --disable-features list is the installed one, and it includes ThirdPartyStoragePartitioning", () => {
    const installed = installedDisabledFeatures();
    expect(installed).toContain('ThirdPartyStoragePartitioning');
    expect([...PLAYWRIGHT_DISABLED_FEATURES]).toEqual(installed);
  });
});
