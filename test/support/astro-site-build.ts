// The test site (test/support/astro-site) as Astro builds it, built once for each installed Astro and each version of
// the site's source, and kept in node_modules/.cache (which npm ci empties): a build is seconds of CPU, and a test run
// loads the site in each of the three engines.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('./astro-site/', import.meta.url));
const CACHE = fileURLToPath(new URL('../../node_modules/.cache/practice-chat-astro-site/', import.meta.url));
const ASTRO_PACKAGE = fileURLToPath(new URL('../../node_modules/astro/package.json', import.meta.url));

/** How the site is built: served under /astro, each page as NAME.html (so /astro/services is services.html). */
const BUILD_OPTIONS = { base: '/astro', build: { format: 'file' } } as const;

/** The folder of the built site: its pages (.html) and their scripts. */
export async function builtAstroSite(): Promise<string> {
  const built = join(CACHE, siteKey());
  if (existsSync(built)) return built;
  const { build: astroBuild } = await import('astro');
  // Astro sends its build's telemetry unless told not to; the tests talk to no outside server.
  process.env.ASTRO_TELEMETRY_DISABLED = '1';
  mkdirSync(CACHE, { recursive: true });
  // Built inside the cache's own folder, so that the rename into place never crosses file systems (a /tmp on tmpfs).
  const out = mkdtempSync(join(CACHE, 'building-'));
  try {
    await astroBuild({
      root: ROOT,
      outDir: join(out, 'dist'),
      cacheDir: join(out, 'cache'),
      ...BUILD_OPTIONS,
      logLevel: 'error',
      vite: { cacheDir: join(out, 'vite') },
    } as Parameters<typeof astroBuild>[0]);
    // Whole or not at all: a run beside this one (another engine's) may have put the same build there first.
    try {
      renameSync(join(out, 'dist'), built);
    } catch (error) {
      if (!existsSync(built)) throw error;
    }
    return built;
  } finally {
    rmSync(out, { recursive: true, force: true });
    // The types Astro generates beside the site's source (for an editor), always there: nothing the tests read.
    rmSync(join(ROOT, '.astro'), { recursive: true, force: true });
  }
}

/** Names what the build depends on: the installed Astro, the site's source files, and how it is built. */
function siteKey(): string {
  const hash = createHash('sha256');
  hash.update(JSON.parse(readFileSync(ASTRO_PACKAGE, 'utf8')).version);
  hash.update(JSON.stringify(BUILD_OPTIONS));
  const source = join(ROOT, 'src');
  for (const file of readdirSync(source, { recursive: true, encoding: 'utf8' }).sort()) {
    const path = join(source, file);
    if (!statSync(path).isFile()) continue;
    hash.update(`\0${file}\0`);
    hash.update(readFileSync(path));
  }
  return hash.digest('hex').slice(0, 16);
}
