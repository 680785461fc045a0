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
    `${styles}${preloads}<script type="module" src="/${entry.file}"></script></head>` +
    '<body><div id="app"></div></body></html>'
  );
}
