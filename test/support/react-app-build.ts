// test/support/react-app.js bundled against one React version, production build, as a site ships it; built once for
// each installed React, React DOM and Vite and each version of the app's source, and kept in node_modules/.cache
// (which npm ci empties), as astro-site-build.ts keeps the Astro site: a Vite build is seconds of CPU, and a test run
// loads the app in several files and in each of the three engines.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { InlineConfig } from 'vite';

const APP = fileURLToPath(new URL('./react-app.js', import.meta.url));
const CACHE = fileURLToPath(new URL('../../node_modules/.cache/practice-chat-react-app/', import.meta.url));
const NODE_MODULES = fileURLToPath(new URL('../../node_modules/', import.meta.url));

/** How the app is bundled: React is installed only under versioned names (react-18, react-dom-19, ...). */
const buildOptions = (version: 18 | 19): InlineConfig => ({
  configFile: false,
  logLevel: 'silent',
  publicDir: false,
  resolve: { alias: { react: `react-${version}`, 'react-dom': `react-dom-${version}` } },
  define: { 'process.env.NODE_ENV': '"production"' },
  build: {
    write: false,
    minify: true,
    target: 'es2020',
    lib: { entry: APP, formats: ['iife'], name: 'BookingApp' },
  },
});

/** The app's bundle for one React version: from the cache, or built (and cached) when its inputs changed. */
export async function bundledReactApp(version: 18 | 19): Promise<string> {
  const cached = join(CACHE, `${appKey(version)}.js`);
  if (existsSync(cached)) return readFileSync(cached, 'utf8');
  const code = await bundle(version);
  mkdirSync(CACHE, { recursive: true });
  // Whole or not at all: a run beside this one (another engine's) may be writing the same file; the rename is atomic.
  const partial = `${cached}.${process.pid}.partial`;
  try {
    writeFileSync(partial, code);
    renameSync(partial, cached);
  } finally {
    rmSync(partial, { force: true });
  }
  return code;
}

async function bundle(version: 18 | 19): Promise<string> {
  const { build } = await import('vite');
  const output = await build(buildOptions(version));
  const chunk = (Array.isArray(output) ? output[0] : output) as { output: { type: string; code?: string }[] };
  const code = chunk.output.find((file) => file.type === 'chunk')?.code;
  if (code === undefined) throw new Error(`no bundle for React ${version}`);
  return code;
}

/** The version of the package `name` as `from` (a package.json) resolves it: scheduler is installed twice. */
const installedVersion = (name: string, from = fileURLToPath(new URL('../../package.json', import.meta.url))) =>
  String(JSON.parse(readFileSync(createRequire(from).resolve(`${name}/package.json`), 'utf8')).version);

/**
 * Names what the bundle depends on: the installed packages that make it, the app's source, and how it is built. The
 * bundler Vite depends on is not named (a range Vite allows): `npm ci` empties the cache anyway.
 */
function appKey(version: 18 | 19): string {
  const hash = createHash('sha256');
  const reactDom = `react-dom-${version}`;
  const versions = [
    installedVersion(`react-${version}`),
    installedVersion(reactDom),
    installedVersion('scheduler', join(NODE_MODULES, reactDom, 'package.json')),
    installedVersion('vite'),
  ];
  hash.update(versions.join('\0'));
  hash.update(JSON.stringify(buildOptions(version)));
  hash.update(readFileSync(APP));
  // This file too: how the bundle is built and picked out of Vite's output.
  hash.update(readFileSync(fileURLToPath(import.meta.url)));
  return `react-${version}-${hash.digest('hex').slice(0, 16)}`;
}
