// The frame page's HTML. Vite builds the panel's script and stylesheet and records them in its manifest; the relay
// writes them into the small page around them, inline, with the hash of each block for the page's CSP, which allows
// those blocks and no other script or style (inline-source.ts says why inline).
import { readUnder } from '../http/files.ts';
import { carriesInline, cspHash } from './inline-source.ts';

/** The panel's entry as Vite's manifest names it. */
export const FRAME_ENTRY = 'src/frame/main.tsx';

interface ManifestEntry {
  file: string;
  css?: string[];
  /** Keys of chunks this one imports. */
  imports?: string[];
  dynamicImports?: string[];
}

export interface FramePage {
  /** The page, its configuration and language still to be written in (withConfiguration, withLocale). */
  html: string;
  /** CSP sources of the page's one inline script and of its inline stylesheets: script-src and style-src. */
  scriptSources: string[];
  styleSources: string[];
}

const SAFE_ASSET = /^assets\/[\w.-]+\.(?:js|css)$/;

/**
 * The page, or null when the panel has not been built, or was built in a shape the page cannot carry inline: a
 * script that imports another file (its relative import would resolve against /frame, and the CSP allows no file),
 * text that would end its block early or that the browser would hash otherwise (inline-source.ts), or one of the
 * page's slots, which the configuration or the language would then be written into.
 */
export async function readFramePage(distDir: string): Promise<FramePage | null> {
  const manifestFile = await readUnder(distDir, '.vite/manifest.json');
  if (manifestFile === null) return null;
  let manifest: Record<string, ManifestEntry>;
  try {
    manifest = JSON.parse(manifestFile.toString('utf8')) as Record<string, ManifestEntry>;
  } catch {
    return null;
  }
  const entry = manifest[FRAME_ENTRY];
  if (!entry || entry.imports?.length || entry.dynamicImports?.length) return null;
  const files = [entry.file, ...(entry.css ?? [])];
  if (!files.every((file) => SAFE_ASSET.test(file))) return null;
  const [script, ...styles] = await Promise.all(files.map((file) => readUnder(distDir, file)));
  if (!script || !styles.every((style) => style !== null)) return null;
  const scriptText = script.toString('utf8');
  const styleTexts = (styles as Buffer[]).map((style) => style.toString('utf8'));
  const carried = (text: string, element: 'script' | 'style') =>
    carriesInline(text, element) && !text.includes(CONFIGURATION_SLOT) && !text.includes(LOCALE_SLOT);
  if (!carried(scriptText, 'script') || !styleTexts.every((text) => carried(text, 'style'))) return null;
  const html =
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1"><title>Chat</title>' +
    styleTexts.map((text) => `<style>${text}</style>`).join('') +
    `${CONFIGURATION_SLOT}${LOCALE_SLOT}<script type="module">${scriptText}</script></head>` +
    '<body><div id="app"></div></body></html>';
  return { html, scriptSources: [cspHash(scriptText)], styleSources: styleTexts.map(cspHash) };
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
