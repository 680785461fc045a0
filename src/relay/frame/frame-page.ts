// The frame page's HTML. Vite builds the panel's script and stylesheet with hashed names and records them in its
// manifest; the relay writes the small page around them, with no inline script or style (its CSP allows none).
import { readUnder } from '../routes/static-assets.ts';

/** The panel's entry as Vite's manifest names it. */
export const FRAME_ENTRY = 'src/frame/main.tsx';

interface ManifestEntry {
  file: string;
  css?: string[];
}

const SAFE_ASSET = /^assets\/[\w.-]+\.(?:js|css)$/;

/** The page, or null when the panel has not been built. */
export async function readFramePage(distDir: string): Promise<string | null> {
  const manifestFile = await readUnder(distDir, '.vite/manifest.json');
  if (manifestFile === null) return null;
  let entry: ManifestEntry | undefined;
  try {
    entry = (JSON.parse(manifestFile.toString('utf8')) as Record<string, ManifestEntry>)[FRAME_ENTRY];
  } catch {
    return null;
  }
  if (!entry || !SAFE_ASSET.test(entry.file) || !(entry.css ?? []).every((file) => SAFE_ASSET.test(file))) return null;
  const styles = (entry.css ?? []).map((file) => `<link rel="stylesheet" href="/${file}">`).join('');
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1"><title>Chat</title>' +
    `${styles}<script type="module" src="/${entry.file}"></script></head>` +
    '<body><div id="app"></div></body></html>'
  );
}
