// The engine a browser test runs in, chosen per run: BROWSER_ENGINE=chromium (the default), firefox or webkit.
// package.json's test script runs the patient's tests once in each.
import { launchChromium } from './chromium.ts';
import type { Engine, EngineName } from './driver.ts';
import { launchFirefox } from './firefox.ts';
import { launchWebKit } from './webkit.ts';

export type { Engine, EngineName, Tab, Target } from './driver.ts';

export function engineOfThisRun(): EngineName {
  const name = process.env.BROWSER_ENGINE ?? 'chromium';
  if (name === 'chromium' || name === 'firefox' || name === 'webkit') return name;
  throw new Error(`BROWSER_ENGINE must be chromium, firefox or webkit, not ${name}`);
}

export function launchEngine(name: EngineName = engineOfThisRun()): Promise<Engine> {
  return { chromium: launchChromium, firefox: launchFirefox, webkit: launchWebKit }[name]();
}
