// The frame page's HTML. Vite builds the panel's script and stylesheet with hashed names and records them in its
// manifest; the relay writes the small page around them, with no inline script or style (its CSP allows none).
import { readUnder } from '../http/files.ts';

/** The panel's entry as Vite's manifest names it. */
export const FRAME_ENTRY = 'src/frame/main.tsx';

interface ManifestEntry {
  file: string;
  css?: string[];
  /** Keys of chunks this one imports (shared with the demo page). */
  imports?: string[];
}

const SAFE_ASSET = /^assets\/[\w.-]+\.(?:js|css)$/;

/** The page, or null when the panel has not been built. */
export async function readFramePage(distDir: string): Promise<string | null> {
  const manifestFile = await readUnder(distDir, '.vite/manifest.json');
  if (manifestFile === null) return null;
  let manifest: Record<string, ManifestEntry>;
  try {
    manifest = JSON.parse(manifestFile.toString('utf8')) as Record<string, ManifestEntry>;
  } catch {
    return null;
  }
  const entry = manifest[FRAME_ENTRY];
  if (!entry) return null;
  // Chunks the entry imports are preloaded, so they do not wait for the entry to be parsed.
  const chunks = (entry.imports ?? []).map((key) => manifest[key]?.file);
  const files = [entry.file, ...(entry.css ?? []), ...chunks];
  if (!files.every((file): file is string => typeof file === 'string' && SAFE_ASSET.test(file))) return null;
  const styles = (entry.css ?? []).map((file) => `<link rel="stylesheet" href="/${file}">`).join('');
  const preloads = (chunks as string[]).map((file) => `<link rel="modulepreload" href="/${file}">`).join('');
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1"><title>Chat</title>' +
    `${styles}${preloads}${CONFIGURATION_SLOT}${LOCALE_SLOT}<script type="module" src="/${entry.file}"></script></head>` +
    '<body><div id="app"></div></body></html>'
  );
}

/** Where withConfiguration puts the configuration: before the panel's script, which reads it as it starts. */
const CONFIGURATION_SLOT = '<!--configuration-->';

/**
 * The page with the practice's configuration in it, as a JSON data block (never executed, so the CSP's script-src
 * does not apply), so the panel renders as soon as its script has run instead of asking the relay again. The frame
 * is created only when the visitor reaches for the launcher, and that request was the longest wait before the panel
 * could show. `<`, `>`, `&` and the two JavaScript line separators are escaped, so no text in the configuration (a
 * bot name of `</script><script>…`) can end the block or be read as markup.
 */
export function withConfiguration(page: string, configuration: unknown): string {
  return page.replace(CONFIGURATION_SLOT, () => jsonBlock('configuration', configuration));
}

const jsonBlock = (id: string, value: unknown) =>
  `<script type="application/json" id="${id}">${JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`)}</script>`;

/** Where withLocale puts the visitor's catalog, beside the configuration. */
const LOCALE_SLOT = '<!--locale-->';

const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (character) => `&#${character.charCodeAt(0)};`);

/**
 * The page in the visitor's language: `lang` and `dir` on the document (Arabic and Persian mirrored before the panel's
 * script runs), the title, and that one language's catalog as a JSON block the panel reads. Only this language
 * travels: the panel's script holds none (test/unit/bundles).
 */
export function withLocale(
  page: string,
  locale: { tag: string; lang: string; dir: 'ltr' | 'rtl'; title: string; catalog: unknown },
): string {
  return page
    .replace('<html lang="en">', () => `<html lang="${escapeHtml(locale.lang)}" dir="${locale.dir}">`)
    .replace('<title>Chat</title>', () => `<title>${escapeHtml(locale.title)}</title>`)
    .replace(LOCALE_SLOT, () => jsonBlock('locale', { locale: locale.tag, catalog: locale.catalog }));
}
