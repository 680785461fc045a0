// What makes a unit test file unsafe to run in a worker shared with other files (the `unit` project runs with
// `isolate: false`: one module graph per worker, every file after the other in it). A file is unsafe when it changes
// something the next file in the same worker would see: a mocked module, fake timers, a stubbed or written global or
// environment variable, a patched built-in, a DOM environment, or the top-level `let` of a module it imports (module
// state that another file could also change); and a file that depends on the order its modules are first loaded in. Read from the file itself and from every module it imports by a relative
// path (helpers under test/ and the sources under src/), so a marker hidden in a helper counts too.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';

/**
 * Each marker, as the scan names it, and the text that shows it. Plain alternations: linear on any source. Each is
 * spelled so that it does not match itself: this file is imported by a test of the shared project.
 */
const MARKERS: readonly (readonly [string, RegExp])[] = [
  ['mocks a module', /\bvi\.(?:mock|doMock|unmock|doUnmock|hoisted)\(/],
  ['fakes timers or the clock', /\bvi\.(?:useFakeTimers|setSystemTime)\(/],
  ['stubs a global or the environment', /\bvi\.(?:stubEnv|stubGlobal|spyOn)\(/],
  ['sets a test environment', /@vitest-env(?:ironment)\b/],
  [
    'writes process.env',
    /\bprocess\.env(?:\.\w+|\[[^\]\n]+\])\s*(?:=[^=]|\?\?=|\|\|=)|\bdelete process\.env\b|\bObject\.assign\(process\.env\b/,
  ],
  ['writes globalThis', /\bglobalThis(?:\.\w+|\[[^\]\n]+\])\s*(?:=[^=]|\?\?=|\|\|=)|\bdelete globalThis\b/],
  ['redefines a property (a built-in, a global)', /\bObject\.defineProperty\(/],
  [
    'patches a built-in',
    /\b(?:Math|Date|JSON|Intl|console|crypto|performance|process)\.\w+\s*=[^=]|\.prototype\.\w+\s*=[^=]|\bObject\.assign\((?:Math|Date|JSON|Intl|console|crypto|performance)\b/,
  ],
  ['changes the process', /\bprocess\.(?:chdir|umask|setMaxListeners)\(/],
  // What no text shows: a file about the order modules load in (the relay loaded after a server has started) finds
  // them already loaded by an earlier file in a shared worker. Such a file says so in a line comment of its own.
  ['says it needs a fresh module graph', /^\/\/ Needs a fresh module graph\b/m],
];

// A module's own mutable state: a `let` or `var` at the start of a line, outside any block.
const TOP_LEVEL_STATE = /^(?:export )?(?:let|var) /m;

// A script kept as a string (String.raw`…`, as the simulator's staff page serves its own) is text, not this module's
// code: its `let`s run in a browser, not here.
const RAW_STRING = /String\.raw`(?:[^`\\]|\\[\s\S])*`/g;

// An import by relative path: `from './x.ts'`, `import './x.ts'`, `import('./x.ts')`.
const RELATIVE_IMPORT = /(?:\bfrom|\bimport\(?)\s*'(\.\.?\/[^'\n]+)'/g;

export interface Marker {
  /** The file, relative to the repository, that carries the marker (the test file or a module it imports). */
  file: string;
  reason: string;
}

/** What one module shows, read once however many test files import it. */
interface ModuleScan {
  markers: string[];
  holdsState: boolean;
  imports: string[];
}

/**
 * A scan of test files under `root`: `markersOf(file)` gives every marker in that file and in the modules it imports
 * by relative path, transitively. Each module is read once per scan (most test files import the same sources).
 */
export function isolationScan(root: string): (testFile: string) => Marker[] {
  const modules = new Map<string, ModuleScan | null>();
  const scanModule = (path: string): ModuleScan | null => {
    if (!modules.has(path)) {
      if (!existsSync(path)) modules.set(path, null);
      else {
        const source = readFileSync(path, 'utf8');
        modules.set(path, {
          markers: MARKERS.filter(([, pattern]) => pattern.test(source)).map(([reason]) => reason),
          holdsState: TOP_LEVEL_STATE.test(source.replace(RAW_STRING, '')),
          imports: [...source.matchAll(RELATIVE_IMPORT)].map(([, specifier]) => resolve(dirname(path), specifier!)),
        });
      }
    }
    return modules.get(path)!;
  };
  return (testFile) => {
    const entry = resolve(root, testFile);
    const found: Marker[] = [];
    const seen = new Set<string>();
    const pending = [entry];
    while (pending.length > 0) {
      const path = pending.pop()!;
      if (seen.has(path)) continue;
      seen.add(path);
      const scanned = scanModule(path);
      if (!scanned) continue;
      const file = relative(root, path);
      for (const reason of scanned.markers) found.push({ file, reason });
      // A test file's own top-level state is its own: no other file imports it.
      if (path !== entry && scanned.holdsState)
        found.push({ file, reason: 'holds module state (a top-level let or var)' });
      pending.push(...scanned.imports);
    }
    return found;
  };
}
