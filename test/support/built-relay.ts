// The unit projects' global setup: src/server.ts compiled once per run, for the tests that start relays in processes
// of their own (test/support/relay-process.ts). Started under tsx instead, every process would load the transpiler and
// its loader hooks again, which costs each start more CPU than the relay's own start-up. The same sources as
// `npm start` runs, the embedded simulator included (unlike dist-server/, production's build, which holds none).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

declare module 'vitest' {
  export interface ProvidedContext {
    /** The compiled relay's entry (src/server.ts built), for `node` to start. */
    relayServerJs: string;
  }
}

let work: string | undefined;

export async function setup(project: TestProject): Promise<void> {
  // Vitest runs a global setup once for each project that names it (here `unit` and `unit-isolated`), one project after
  // the other, each with its own copy of this module. The first compiles and provides the path to the whole run;
  // the next finds it already provided.
  const run = project.vitest;
  if (run.getProvidedContext().relayServerJs !== undefined) return;
  const { build } = await import('vite');
  work = mkdtempSync(join(tmpdir(), 'pwc-relay-build-'));
  // Laid out as the repository is, so that what src/server.ts finds beside itself (../dist, ../public) and the
  // packages it imports resolve as they do for `npm start`.
  for (const name of ['dist', 'public', 'node_modules']) symlinkSync(join(ROOT, name), join(work, name));
  mkdirSync(join(work, 'bin'));
  await build({
    configFile: false,
    root: ROOT,
    logLevel: 'warn',
    publicDir: false,
    oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
    build: {
      ssr: true,
      outDir: join(work, 'bin'),
      emptyOutDir: false,
      target: 'node20',
      minify: false,
      sourcemap: true,
      rolldownOptions: {
        input: { server: join(ROOT, 'src/server.ts') },
        output: { format: 'es', entryFileNames: '[name].js' },
      },
    },
  });
  run.provide('relayServerJs', join(work, 'bin/server.js'));
}

export function teardown(): void {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
}
