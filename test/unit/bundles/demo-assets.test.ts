// The built demo page's files are all named assets/demo-* (vite.config.ts), and the panel's none: a relay without
// demo pages (DEMO_PAGES, off in production) leaves out exactly the demo's files by that name. Needs `npm run build`.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEMO_ASSET_PREFIX } from '../../../src/relay/routes/static-assets.ts';
import { builtLoaderFrame, frameAssets, readBuilt } from './budgets.ts';

const builtAssets = readdirSync(new URL('../../../dist/assets', import.meta.url)).filter(
  (name) => !/\.(br|gz)$/.test(name),
);
const loaderFrame = builtLoaderFrame().replace(/^assets\//, '');
// The panel's files and the loader's second file (with its source map): never named demo-*.
const panel = new Set([
  ...frameAssets().map((file) => file.replace(/^assets\//, '')),
  loaderFrame,
  `${loaderFrame}.map`,
]);

describe('the built assets', () => {
  it('the demo page loads only assets named demo-*', () => {
    const page = readBuilt('demo/index.html').toString('utf8');
    const loaded = [...page.matchAll(/(?:src|href)="\/assets\/([^"]+)"/g)].map((match) => match[1]!);
    expect(loaded.length).toBeGreaterThan(0);
    for (const name of loaded) expect(name.startsWith(DEMO_ASSET_PREFIX), name).toBe(true);
  });

  it("every asset is either the panel's or the loader's (never named demo-*) or the demo's (named demo-*)", () => {
    for (const name of panel) expect(name.startsWith(DEMO_ASSET_PREFIX), name).toBe(false);
    for (const name of builtAssets.filter((name) => !panel.has(name)))
      expect(name.startsWith(DEMO_ASSET_PREFIX), name).toBe(true);
  });
});
