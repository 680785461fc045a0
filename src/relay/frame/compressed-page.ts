// The frame page on the wire: brotli (quality 11, like the built assets) when the browser accepts it. The page differs
// only by configuration and language, so each distinct page is compressed once and kept (a few hundred at most):
// quality 11 costs milliseconds that no visitor should wait for twice.
import { brotliCompressSync, constants } from 'node:zlib';

export function createPageCompressor(maxEntries = 256) {
  const cache = new Map<string, Buffer>();
  return function compressedPage(html: string): Buffer {
    const hit = cache.get(html);
    if (hit) {
      // Most recently used last, so the oldest is the one dropped.
      cache.delete(html);
      cache.set(html, hit);
      return hit;
    }
    const body = brotliCompressSync(html, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(html) },
    });
    cache.set(html, body);
    if (cache.size > maxEntries) cache.delete(cache.keys().next().value!);
    return body;
  };
}

/** Whether Accept-Encoding allows br (a q of 0 refuses it). */
export function acceptsBrotli(header: string | undefined): boolean {
  return (header ?? '').split(',').some((entry) => {
    const [coding = '', ...parameters] = entry.split(';').map((part) => part.trim().toLowerCase());
    return coding === 'br' && !parameters.some((parameter) => /^q=0(?:\.0{0,3})?$/.test(parameter));
  });
}
