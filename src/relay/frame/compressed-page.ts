// The frame page on the wire, brotli-compressed when the browser accepts it. The page differs only by configuration and
// language, so each distinct page is compressed once and kept (a few hundred at most), under its digest rather than
// its text. The page carries the panel's script, so quality 11 (the built assets') takes long enough that no visitor
// should wait for it: the first request for a page gets a quick compression, made off the event loop, and the
// smaller one replaces it in the background for every visitor after.
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants } from 'node:zlib';

const compress = promisify(brotliCompress);
const QUICK_QUALITY = 5;
const BEST_QUALITY = 11;

export function createPageCompressor(maxEntries = 256) {
  const cache = new Map<string, Buffer | Promise<Buffer>>();
  const keep = (key: string, body: Buffer | Promise<Buffer>) => {
    cache.delete(key);
    cache.set(key, body);
    if (cache.size > maxEntries) cache.delete(cache.keys().next().value!);
  };
  const at = (quality: number, html: string) =>
    compress(html, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: quality,
        [constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(html),
      },
    });
  return function compressedPage(html: string): Promise<Buffer> {
    const key = createHash('sha256').update(html, 'utf8').digest('base64');
    const hit = cache.get(key);
    // Most recently used last, so the oldest is the one dropped.
    if (hit) {
      keep(key, hit);
      return Promise.resolve(hit);
    }
    const quick = at(QUICK_QUALITY, html);
    keep(key, quick);
    quick
      .then((body) => {
        // Only while this page is still kept (and not yet replaced): a dropped page is not brought back.
        if (cache.get(key) === quick) keep(key, body);
        return at(BEST_QUALITY, html);
      })
      .then((best) => cache.has(key) && keep(key, best))
      // A failed compression is not kept: the next request tries again.
      .catch(() => cache.delete(key));
    return quick;
  };
}

/** Whether Accept-Encoding allows br (a q of 0 refuses it). */
export function acceptsBrotli(header: string | undefined): boolean {
  return (header ?? '').split(',').some((entry) => {
    const [coding = '', ...parameters] = entry.split(';').map((part) => part.trim().toLowerCase());
    return coding === 'br' && !parameters.some((parameter) => /^q=0(?:\.0{0,3})?$/.test(parameter));
  });
}
