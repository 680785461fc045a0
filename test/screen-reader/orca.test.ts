// The Orca run (orca.ts) as part of npm test: a real screen reader through a whole conversation in English and
// Arabic, each status announcement, the greeting and the warning's title spoken exactly once. It runs as its own
// process, as `npm run test:screen-reader` does, and writes its transcripts to a scratch directory rather than over
// the committed ones in docs/screen-reader/. Mostly waiting on Orca, so it runs beside the unit files
// (vite.config.ts), not beside the browser files that keep both cores busy.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('./orca.ts', import.meta.url));

it('Orca speaks every announcement of a conversation once, in English and in Arabic', async () => {
  const transcripts = mkdtempSync(join(tmpdir(), 'orca-transcripts-'));
  try {
    const run = spawn(process.execPath, ['--import', 'tsx', SCRIPT], {
      env: { ...process.env, ORCA_TRANSCRIPTS_DIR: transcripts },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    run.stdout.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    run.stderr.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    const code = await new Promise<number | null>((resolve) => run.once('close', resolve));
    // On failure, what Orca said in each language that got that far, besides what the run printed.
    const spoken = ['en', 'ar']
      .map((locale) => {
        try {
          return readFileSync(join(transcripts, `orca-${locale}.txt`), 'utf8');
        } catch {
          return `(no transcript for ${locale})`;
        }
      })
      .join('\n');
    expect(code, `${output}\n${spoken}`).toBe(0);
  } finally {
    rmSync(transcripts, { recursive: true, force: true });
  }
}, 600_000);
