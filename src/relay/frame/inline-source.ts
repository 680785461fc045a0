// What the frame page carries inline, and how its CSP names it. The panel's script and stylesheet are written into
// the page so that a cold open waits for one document on one new connection, not for two more files each on a
// connection of its own (the frame's requests cannot share the page's connections: they are partitioned apart). The
// policy allows exactly these blocks by their hash, so an injected inline script or style is refused all the same.
import { createHash } from 'node:crypto';

/** A CSP source expression that allows exactly this text as an inline block (CSP Level 3, hash-source). */
export const cspHash = (text: string): string =>
  `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * Whether `text` can be written between `<script>` and `</script>` (or `<style>` and `</style>`) as it is: the HTML
 * parser ends a raw text block at its end tag, and in a script `<!--` can change where it ends. Escaping would
 * change what the hash covers and could change the code (a tagged template sees `\/`), so text that cannot be
 * carried as it is is not carried at all.
 */
export function carriesInline(text: string, element: 'script' | 'style'): boolean {
  const lower = text.toLowerCase();
  return (
    !lower.includes(`</${element}`) &&
    (element === 'style' || !lower.includes('<!--')) &&
    // The browser hashes a block after turning CR and CRLF into LF and NUL into U+FFFD: with either in the text, the
    // hash taken here would not be the one the browser checks, and the block would be refused.
    !text.includes('\r') &&
    !text.includes('\0')
  );
}
