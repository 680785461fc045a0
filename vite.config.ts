/// <reference types="vitest/config" />
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type UserConfig } from 'vite';
import type { TestProjectInlineConfiguration } from 'vitest/config';
import { ISOLATED_UNIT_TESTS } from './test/support/isolated-unit-tests.ts';
import { LongestFirstSequencer } from './test/support/longest-first-sequencer.ts';
import { panelOwnPropertiesPattern } from './src/frame/model/own-properties.ts';
import { loaderOwnPropertiesPattern } from './src/loader/own-properties.ts';

/**
 * JSX as calls to Preact's own createElement (h), which the panel ships anyway, rather than to preact/jsx-runtime: a
 * second vnode factory that the panel's size budget would pay for. A bundle adds the import of h to every module it
 * compiles, .ts ones included, so the builds that ship no Preact (the loader's, the relay's) keep the automatic
 * runtime, which imports only where there is JSX.
 */
const preactH: UserConfig['oxc'] = {
  jsx: { runtime: 'classic', pragma: 'h', pragmaFrag: 'Fragment' },
  jsxInject: "import { h, Fragment } from 'preact'",
};
const preactJsxRuntime: UserConfig['oxc'] = { jsx: { runtime: 'automatic', importSource: 'preact' } };

// `vite build --mode loader-frame` builds the loader's second file, the frame's code (src/loader/frame-entry.ts):
// an ES module with one default export, which loader.js imports on the patient's first sign of intent. Its name carries its
// content's hash, so the relay serves it from assets/ (cached for a year, precompressed) and a loader.js only ever
// fetches the file it was built with. Its property names are not shortened: the ones it shares with loader.js, which
// is minified apart, must stay as written (src/loader/frame.ts).
const loaderFrame: UserConfig = {
  publicDir: false,
  oxc: preactJsxRuntime,
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    target: 'es2020',
    minify: true,
    sourcemap: 'hidden',
    modulePreload: false,
    rolldownOptions: {
      input: { 'loader-frame': 'src/loader/frame-entry.ts' },
      // An app build drops an entry's exports unless told to keep them: the default export is the file's purpose.
      preserveEntrySignatures: 'exports-only',
      output: { format: 'es', entryFileNames: 'assets/loader-frame-[hash].js' },
    },
  },
};

/** The second file's path as the loader-frame build named it (built before the loader, by `npm run build`). */
function builtLoaderFrame(): string {
  const name = readdirSync('dist/assets').find((file) => /^loader-frame-[\w-]+\.js$/.test(file));
  if (!name) throw new Error('dist/assets/loader-frame-*.js is missing: run `vite build --mode loader-frame` first');
  return `/assets/${name}`;
}

// `vite build --mode loader` builds loader.js: one classic script (IIFE) that a practice's page runs with a plain
// <script> tag, so it can hold no import or export statement and shares no chunk with anything else; its one
// `import()` is of the second file, by its full URL on the relay (test/unit/bundles checks).
const loader = (): UserConfig => ({
  publicDir: false,
  oxc: preactJsxRuntime,
  define: { LOADER_FRAME_PATH: JSON.stringify(builtLoaderFrame()) },
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    target: 'es2020',
    minify: true,
    // loader.js.map is written beside it and served by the relay for whoever asks (a developer reading a stack trace),
    // but loader.js names no map: browsers would otherwise fetch it whenever DevTools is open on a practice's page.
    sourcemap: 'hidden',
    lib: { entry: 'src/loader/main.ts', formats: ['iife'], name: 'PracticeChatLoader', fileName: () => 'loader.js' },
    // The loader's own property names are shortened too (src/loader/own-properties.ts says which and why).
    rolldownOptions: { output: { minify: { mangleProps: { include: loaderOwnPropertiesPattern() } } } },
  },
});

// `vite build` builds the chat panel: hashed assets plus a manifest, from which the relay writes the frame page
// (src/relay/frame/frame-page.ts). Built on its own so that it shares no chunk with the demo page: a patient's
// browser downloads only the panel.
// ES2022 syntax (class fields, logical assignment) is kept as written rather than lowered: Chrome and Edge 94,
// Firefox 93 and Safari 15 (iOS 15, the last for the oldest iPhones still in use) and every later version run it, and
// the lowered helpers cost the panel's size budget. The loader stays ES2020: it runs in every practice's page.
const frame: UserConfig = {
  publicDir: false,
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    target: 'es2022',
    manifest: true,
    modulePreload: false,
    rolldownOptions: {
      input: { frame: 'src/frame/main.tsx' },
      // The model's own property names are shortened too (src/frame/model/own-properties.ts says which and why): the
      // panel is one chunk (the demo page is built on its own), so every use of a name gets the same short one.
      output: { minify: { mangleProps: { include: panelOwnPropertiesPattern() } } },
    },
  },
};

// `vite build --mode demo` builds the configuration preview page into dist/demo/. Every file it writes under assets/
// is named demo-*, which is how a relay without demo pages (DEMO_PAGES, off in production) leaves them unserved.
const demo: UserConfig = {
  publicDir: false,
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    target: 'es2020',
    modulePreload: false,
    rolldownOptions: {
      input: { demo: 'demo/index.html' },
      output: {
        entryFileNames: 'assets/demo-[hash].js',
        chunkFileNames: 'assets/demo-[name]-[hash].js',
        assetFileNames: 'assets/demo-[hash][extname]',
      },
    },
  },
};

// `vite build --mode server` compiles the relay to plain JavaScript in dist-server/, so `npm run serve` starts with no
// transpiler loaded. Dependencies stay external (imported from node_modules at run time); only our TypeScript is
// compiled. dist-server/ is what production runs, and it holds no simulator: not embedded in server.js
// (src/embedded-simulator.ts), and no file of its own either (the simulator's own build is the next one).
const server: UserConfig = {
  publicDir: false,
  oxc: preactJsxRuntime,
  resolve: {
    alias: [
      {
        find: /^\.\/embedded-simulator\.ts$/,
        replacement: fileURLToPath(new URL('./src/no-embedded-simulator.ts', import.meta.url)),
      },
    ],
  },
  build: {
    ssr: true,
    outDir: 'dist-server',
    emptyOutDir: true,
    target: 'node20',
    minify: false,
    sourcemap: true,
    rolldownOptions: {
      input: { server: 'src/server.ts' },
      output: { format: 'es', entryFileNames: '[name].js' },
    },
  },
};

// `vite build --mode simulator` (`npm run build:simulator`) compiles the simulator's own entry to
// dist-simulator/simulator.js, for the relay's benches and production-like trials, which run it with no transpiler.
// Apart from dist-server/, and not part of `npm run build`, so that a relay deployed from a checkout carries none.
const simulator: UserConfig = {
  ...server,
  resolve: {},
  build: {
    ...server.build,
    outDir: 'dist-simulator',
    rolldownOptions: {
      input: { simulator: 'src/simulator/main.ts' },
      output: { format: 'es', entryFileNames: '[name].js' },
    },
  },
};

const builds: Record<string, () => UserConfig> = {
  loader,
  'loader-frame': () => loaderFrame,
  demo: () => demo,
  server: () => server,
  simulator: () => simulator,
};

/**
 * A project of unit test files (test/unit), in Node. Most of a unit file's time is spent waiting (on real servers, relay
 * processes, redis-server, timers), not computing: four files at a time, where Vitest's default on two cores would be
 * one. Not more, and not beside the browser files: on a saturated machine the files that hold the product to a time
 * fail (docs/testing.md). `unit` shares one module graph per worker between its files (isolate: false), so each
 * module is imported once per worker rather than once per file; the files that change what another file would see
 * (mocks, fake timers, a DOM environment, patched globals: test/support/isolated-unit-tests.ts) run in `unit-isolated`,
 * each in a fresh worker, and so do the benches (`npm run bench`: the panel's, in happy-dom). Both compile the relay
 * for its processes once per run (test/support/built-relay.ts).
 */
function unitProject(
  name: 'unit' | 'unit-isolated',
  files: { include?: string[]; exclude?: string[] },
): TestProjectInlineConfiguration {
  return {
    extends: true,
    test: {
      name,
      include: files.include ?? ['test/unit/**/*.test.{ts,tsx}'],
      exclude: files.exclude ?? [],
      ...(name === 'unit-isolated' ? { benchmark: { include: ['test/bench/**/*.bench.{ts,tsx}'] } } : {}),
      environment: 'node',
      globalSetup: ['test/support/built-relay.ts'],
      isolate: name === 'unit-isolated',
      maxWorkers: 4,
    },
  };
}

/**
 * The screen-reader test (test/screen-reader/orca.test.ts): Orca, Chromium and the product on an Xvfb display of their
 * own, for about three minutes, mostly waiting on Orca. With the unit files (the same group, so the same worker
 * limit), listed first so that it starts first and ends with them, rather than beside the browser files.
 */
const screenReaderProject: TestProjectInlineConfiguration = {
  extends: true,
  test: {
    name: 'screen-reader',
    include: ['test/screen-reader/**/*.test.ts'],
    environment: 'node',
    maxWorkers: 4,
  },
};

/** The browser tests that run in every engine, not in Chromium only. */
const PATIENT_BROWSER_TESTS = [
  'test/browser/patient.test.ts',
  'test/browser/accessibility.test.ts',
  'test/browser/reflow.test.ts',
  'test/browser/chosen-language.test.ts',
  'test/browser/covering-panel.test.ts',
  'test/browser/page-lifecycle.test.ts',
  'test/browser/real-navigations.test.ts',
];

/**
 * A project of browser test files, in the engine its name says ('browser' is Chromium, the default). A worker lends
 * one Chromium and one Firefox to the files it runs (test/browser/worker-browser.ts); two files at a time, since a
 * browser keeps a core busy, and after the unit files (a group of its own, since Vitest runs one worker limit per
 * group).
 */
function browserProject(name: 'browser' | 'firefox' | 'webkit', include: string[]) {
  return {
    extends: true,
    test: {
      name,
      include,
      environment: 'node',
      ...(name === 'browser' ? {} : { env: { BROWSER_ENGINE: name } }),
      maxWorkers: 2,
      // A worker runs file after file with one module graph: the relay, the simulator and playwright-core are imported
      // once per worker, not once per file, which was most of a browser file's own CPU. Browser files mock nothing
      // and change no module's state but the worker's lent browsers, which each file gives back with its contexts
      // closed; each starts and closes its own servers.
      isolate: false,
      sequence: { groupOrder: 1 },
      testTimeout: 30_000,
      hookTimeout: 60_000,
    },
  } as const;
}

export default defineConfig(({ mode }) => ({
  oxc: preactH,
  ...(builds[mode]?.() ?? frame),
  test: {
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      screenReaderProject,
      unitProject('unit', { exclude: [...ISOLATED_UNIT_TESTS] }),
      unitProject('unit-isolated', { include: [...ISOLATED_UNIT_TESTS] }),
      browserProject('browser', ['test/browser/**/*.test.ts']),
      // The patient's tests once more in Firefox and in WebKit (test/browser/engines), in the same run as Chromium's.
      browserProject('firefox', PATIENT_BROWSER_TESTS),
      browserProject('webkit', PATIENT_BROWSER_TESTS),
    ],
  },
}));
