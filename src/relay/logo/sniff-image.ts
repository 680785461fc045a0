// Which image a logo's bytes are, read from the bytes themselves: the storage host's Content-Type is not trusted, so
// an HTML page or a script labelled image/png is never served from the relay's origin.

export type LogoType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp' | 'image/svg+xml';

const startsWith = (bytes: Uint8Array, signature: readonly number[], offset = 0) =>
  signature.every((byte, index) => bytes[offset + index] === byte);

const ascii = (text: string) => Array.from(text, (character) => character.charCodeAt(0));

/** The allowed image type these bytes are, or null for anything else (HTML, scripts, unknown formats). */
export function sniffImageType(bytes: Uint8Array): LogoType | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) return 'image/gif';
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'image/webp';
  return isSvg(bytes) ? 'image/svg+xml' : null;
}

/**
 * SVG is text whose first element is <svg>, after an optional BOM, XML declaration, comments and doctype. Anything
 * with a different root (an HTML page, say) is refused, so the relay never serves a document that is not an image.
 */
function isSvg(bytes: Uint8Array): boolean {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, 4096));
  } catch {
    // A multi-byte character cut at 4096 bytes is not a reason to refuse; anything else undecodable is.
    if (bytes.length <= 4096) return false;
    text = new TextDecoder('utf-8').decode(bytes.subarray(0, 4096));
  }
  // The space before a doctype's `>` is left to `[^>[]*` when there is no internal subset: read by two parts of the
  // pattern, a run of spaces could be split between them in as many ways as it is long.
  const prolog = /^\uFEFF?\s*(?:<\?xml[^>]*\?>\s*)?(?:(?:<!--[\s\S]*?-->|<!DOCTYPE[^>[]*(?:\[[\s\S]*?\]\s*)?>)\s*)*/i;
  const rest = text.replace(prolog, '');
  return /^<svg[\s>/]/i.test(rest);
}
